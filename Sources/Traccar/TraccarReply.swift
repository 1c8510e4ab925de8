import Delivery
import HTTP

/// What Traccar's answer to one position means: the outcome classification, a pure function.
package enum TraccarReply {
    /// - 2xx: the position is stored.
    /// - 400 or 404: the server does not know `deviceID` (Traccar's OsmAnd decoder answers 400 when
    ///   the id matches no device): nothing can be delivered until the device exists; disabled.
    /// - anything else (5xx, 3xx, other 4xx, transport errors, timeouts, a connection closed without
    ///   an answer): sent again later, after the Retry-After when the server gave one. A close
    ///   without an answer is a transport failure like any other (a restarting server, a proxy, an
    ///   outage): dropping the payload lost positions and the share's final update (issue 23), and
    ///   the README promises the whole track after an outage.
    package static func outcome(of result: Result<HTTPResponse, HTTPFailure>, deviceID: String) -> DeliveryOutcome {
        switch result {
        case .success(let response) where (200..<300).contains(response.status):
            return .delivered()
        case .success(let response) where response.status == 400 || response.status == 404:
            return .disabled(reason: "Traccar does not know device id '\(deviceID)' (HTTP \(response.status)): "
                             + "add a device with this identifier in Traccar, then restart")
        case .success(let response):
            return .retry(reason: "HTTP \(response.status)", after: response.retryAfter)
        case .failure(.noResponse(let message)):
            return .retry(reason: "Traccar closed the connection without an answer (\(message))")
        case .failure(.transport(let message)):
            return .retry(reason: message)
        case .failure(.cancelled):
            return .retry(reason: "cancelled")
        }
    }
}
