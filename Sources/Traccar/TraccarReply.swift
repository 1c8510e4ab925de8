import Delivery
import HTTP

/// What Traccar's answer to one position means: the outcome classification, a pure function.
package enum TraccarReply {
    /// - 2xx: the position is stored.
    /// - 400 or 404: the server does not know `deviceID` (Traccar's OsmAnd decoder answers 400 when
    ///   the id matches no device): nothing can be delivered until the device exists; disabled.
    /// - the connection closed without an answer: Traccar's decoder failed on this payload;
    ///   refused (dropped, logged).
    /// - anything else (5xx, 3xx, other 4xx, transport errors, timeouts): sent again later, after
    ///   the Retry-After when the server gave one.
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
            return .refused(reason: "Traccar closed the connection without an answer (\(message)): payload refused")
        case .failure(.transport(let message)):
            return .retry(reason: message)
        case .failure(.cancelled):
            return .retry(reason: "cancelled")
        }
    }
}
