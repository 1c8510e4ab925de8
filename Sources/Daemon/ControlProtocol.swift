import Delivery
import JSONCoding
import LiveLocation

/// The control protocol, version 1: one JSON object per line each way over the control socket.
///
/// Requests: `{"v":1,"op":"start","duration":"15m"|"1h"|"8h"}`, `{"v":1,"op":"stop"}`,
/// `{"v":1,"op":"status"}`. Each gets one reply line, `{"v":1,"ok":true,…}` or
/// `{"v":1,"ok":false,"error":{"code":"…","message":"…"}}`. A connection may carry several requests,
/// one after another. A request line is at most `ControlProtocol.maximumRequestBytes` bytes; a
/// connection idle for `ControlProtocol.idleTimeout` gets an error reply and is closed.
package enum ControlProtocol {
    package static let version = 1
    package static let maximumRequestBytes = 4096
    package static let idleTimeout: Duration = .seconds(5)
}

/// One request line.
package struct ControlRequest: Codable, Sendable, Equatable {
    package var v: Int?
    package var op: String?
    package var duration: String?

    package init(op: String, duration: String? = nil) {
        self.v = ControlProtocol.version
        self.op = op
        self.duration = duration
    }
}

/// The error codes of `{"ok":false,"error":{"code":…}}`.
package enum ControlErrorCode: String, Codable, Sendable {
    /// Not JSON, not an object, or a field of the wrong type.
    case badRequest = "bad-request"
    /// The request line exceeds the size limit.
    case tooLarge = "too-large"
    /// No complete request within the idle time.
    case timeout
    /// `v` is missing or not a version this daemon speaks.
    case unsupportedVersion = "unsupported-version"
    /// `op` is missing or not one of start, stop, status.
    case unknownOperation = "unknown-op"
    /// `duration` is missing or not 15m, 1h or 8h.
    case badDuration = "bad-duration"
    /// The caller is neither root nor in the control group.
    case forbidden
    /// The daemon failed to do it (e.g. could not persist the share).
    case `internal`
}

/// One reply line.
package struct ControlResponse: Codable, Sendable {
    package struct Failure: Codable, Sendable {
        package var code: ControlErrorCode
        package var message: String
    }

    package var v: Int
    package var ok: Bool
    /// `start`: the new share. `stop`: the share stopped, absent when none was active.
    package var share: ShareSummary?
    /// `status`: everything `liveloc status` shows.
    package var status: StatusReport?
    package var error: Failure?

    package static func success(share: ShareSummary? = nil, status: StatusReport? = nil) -> ControlResponse {
        ControlResponse(v: ControlProtocol.version, ok: true, share: share, status: status, error: nil)
    }

    package static func failure(_ code: ControlErrorCode, _ message: String) -> ControlResponse {
        ControlResponse(v: ControlProtocol.version, ok: false, share: nil, status: nil,
                        error: Failure(code: code, message: message))
    }

    /// The reply as one JSON line, newline included.
    package var line: [UInt8] {
        var bytes = (try? JSON.encode(self))
            ?? Array(#"{"error":{"code":"internal","message":"unencodable reply"},"ok":false,"v":1}"#.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

/// A share as the control protocol shows it.
package struct ShareSummary: Codable, Sendable, Equatable {
    package var id: String
    package var startedAt: String
    package var expiresAt: String
    /// Time left on the broadcaster's clock, seconds.
    package var secondsLeft: Double?
    package var seq: Int
    package var updatesSent: Int
    package var lastPosition: Position?

    package struct Position: Codable, Sendable, Equatable {
        package var latitude: Double
        package var longitude: Double
        /// The fix's time.
        package var time: String
    }

    package init(_ snapshot: ShareSnapshot, now: Timestamp?) {
        id = snapshot.id.rawValue
        startedAt = snapshot.startedAt.iso8601
        expiresAt = snapshot.expiresAt.iso8601
        secondsLeft = now.map { max(0, Double((snapshot.expiresAt - $0).wholeMilliseconds) / 1000) }
        seq = snapshot.seq
        updatesSent = snapshot.updatesSent
        lastPosition = snapshot.lastFix.map {
            Position(latitude: $0.latitude, longitude: $0.longitude, time: $0.time.iso8601)
        }
    }
}

/// The answer to `status`.
package struct StatusReport: Codable, Sendable {
    package var source: SourceStatus
    /// The active share, absent when none.
    package var share: ShareSummary?
    package var sinks: [SinkStatus]
    /// The broadcaster's clock (the log's timeline for a replay).
    package var clock: String
    /// Why the journal cannot be written, while it cannot (a full disk); absent when all is well.
    package var journal: String?
}

/// The source's state as `status` shows it.
package struct SourceStatus: Codable, Sendable, Equatable {
    /// `gpsd`, `replay` or `serial`.
    package var kind: String
    /// `connecting`, `connected`, `disconnected` or `ended`.
    package var state: String
    /// Whether a fix arrived within the last `SourceMonitor.fixFreshness`.
    package var fix: Bool
    /// The newest fix's time.
    package var lastFixTime: String?
    /// Seconds since the newest fix arrived (monotonic clock).
    package var lastFixAgeSeconds: Double?
    package var fixesReceived: Int
    /// The last error the source reported, if any.
    package var lastError: String?
    /// More than `state` where the source can say it: a serial receiver's rate
    /// (`open at 9600 baud (detected)`, `open, detecting baud rate`) or `waiting for device`.
    package var detail: String? = nil
}

/// One sink's state as `status` shows it.
package struct SinkStatus: Codable, Sendable, Equatable {
    package var name: String
    package var delivered: Int
    package var failed: Int
    package var lastError: String?
    /// For sinks with a queue of their own (the webhook): what is still to be delivered.
    package var delivery: Delivery?
    /// For destinations with a lasting connection (MQTT): its state.
    package var link: LinkSummary?

    package init(name: String, delivered: Int, failed: Int, lastError: String?, delivery: Delivery? = nil, link: LinkSummary? = nil) {
        self.name = name
        self.delivered = delivered
        self.failed = failed
        self.lastError = lastError
        self.delivery = delivery
        self.link = link
    }

    package struct Delivery: Codable, Sendable, Equatable {
        /// active, retrying or disabled (after a 410).
        package var state: String
        package var pending: Int
        package var acknowledged: Int
        package var dropped: Int
        package var lastError: String?

        package init(state: String, pending: Int, acknowledged: Int, dropped: Int, lastError: String?) {
            self.state = state
            self.pending = pending
            self.acknowledged = acknowledged
            self.dropped = dropped
            self.lastError = lastError
        }
    }
}

/// A destination's connection as `status` shows it.
package struct LinkSummary: Codable, Sendable, Equatable {
    /// `connecting`, `connected`, `refused` or `disconnected`.
    package var state: String
    /// Why it is refused or disconnected.
    package var reason: String?

    package init(_ link: LinkState) {
        switch link {
        case .connecting: state = "connecting"
        case .connected: state = "connected"
        case .refused(let why): state = "refused"; reason = why
        case .disconnected(let why): state = "disconnected"; reason = why
        }
    }
}

extension ControlRequest {
    /// Parses a request line (without its newline). Nil when it is not one JSON object whose fields
    /// have the protocol's types.
    package init?(line: [UInt8]) {
        guard let request = try? JSON.decode(ControlRequest.self, from: line) else { return nil }
        self = request
    }
}

extension ControlResponse {
    /// Parses a reply line. Nil when it is not a reply of this protocol.
    package init?(line: [UInt8]) {
        guard let response = try? JSON.decode(ControlResponse.self, from: line) else { return nil }
        self = response
    }
}
