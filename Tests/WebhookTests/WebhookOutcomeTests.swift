import Delivery
import HTTP
import Testing
import Webhook

/// What each HTTP outcome means for an event, without a network: `WebhookDestination.classify`.
@Suite struct WebhookOutcomeTests {
    @Test func a2xxIsDelivered() {
        for status in [200, 201, 202, 204, 299] {
            #expect(WebhookDestination.classify(.response(status: status, retryAfter: nil), isFinal: false) == .delivered())
        }
    }

    @Test func goneDisablesTheEndpoint() {
        #expect(WebhookDestination.classify(.response(status: 410, retryAfter: nil), isFinal: false) == .disabled(reason: "HTTP 410 Gone"))
        #expect(WebhookDestination.classify(.response(status: 410, retryAfter: nil), isFinal: true) == .disabled(reason: "HTTP 410 Gone"))
    }

    @Test func aRedirectIsRetriedNotFollowed() {
        guard case .retry(let reason, nil) = WebhookDestination.classify(.response(status: 301, retryAfter: nil), isFinal: false) else {
            Issue.record("a redirect must be retried")
            return
        }
        #expect(reason.contains("redirect not followed"))
    }

    @Test func serverErrorsAreRetriedWithTheServersWait() {
        #expect(WebhookDestination.classify(.response(status: 503, retryAfter: .seconds(7)), isFinal: false)
                == .retry(reason: "HTTP 503", after: .seconds(7)))
        #expect(WebhookDestination.classify(.response(status: 500, retryAfter: nil), isFinal: true) == .retry(reason: "HTTP 500"))
    }

    @Test func clientErrorsAboutTheEndpointAreRetried() {
        for status in [401, 403, 404, 408, 409, 423, 425, 429] {
            #expect(WebhookDestination.classify(.response(status: status, retryAfter: nil), isFinal: false)
                    == .retry(reason: "HTTP \(status)"), "HTTP \(status)")
        }
    }

    @Test func otherClientErrorsRefuseAnUpdateButRetryAFinalEvent() {
        #expect(WebhookDestination.classify(.response(status: 400, retryAfter: nil), isFinal: false) == .refused(reason: "HTTP 400"))
        #expect(WebhookDestination.classify(.response(status: 422, retryAfter: nil), isFinal: false) == .refused(reason: "HTTP 422"))
        guard case .retry = WebhookDestination.classify(.response(status: 400, retryAfter: nil), isFinal: true) else {
            Issue.record("a final event is never dropped")
            return
        }
    }

    @Test func transportErrorsAndCancellationAreRetried() {
        #expect(WebhookDestination.classify(.transportError("Connection refused"), isFinal: false) == .retry(reason: "Connection refused"))
        #expect(WebhookDestination.classify(.cancelled, isFinal: true) == .retry(reason: "cancelled"))
    }
}
