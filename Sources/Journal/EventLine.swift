import JSONCoding
import LiveLocation

/// A share event read back from its JSON object (the stdout line, the webhook body): the journal
/// stores that text once and every destination formats its wire from the event it decodes to.
enum EventLine {
    /// The event a JSON object describes; nil when it is not one of ours.
    static func decode(_ bytes: [UInt8]) -> ShareEvent? {
        guard let line = try? JSON.decode(Line.self, from: bytes) else { return nil }
        let id = ShareID(rawValue: line.shareId)
        switch line.event {
        case "updated":
            guard let location = line.location,
                  let lastUpdateAt = Timestamp(iso8601: location.lastUpdateAt),
                  let startedAt = Timestamp(iso8601: location.startedAt),
                  let expiresAt = Timestamp(iso8601: location.expiresAt) else { return nil }
            return .updated(shareID: id, seq: line.seq, location: LiveLocation(
                latitude: location.latitude, longitude: location.longitude, lastUpdateAt: lastUpdateAt,
                startedAt: startedAt, expiresAt: expiresAt, isActive: location.isActive,
                accuracyMeters: location.accuracy, altitudeMeters: location.altitude,
                speedMetersPerSecond: location.speed, courseDegreesTrue: location.course, hdop: location.hdop,
                battery: location.battery.flatMap { battery in
                    BatteryReading.Status(rawValue: battery.status).map { BatteryReading(level: battery.level, status: $0) }
                }))
        case "ended":
            guard let reason = line.reason.flatMap(ShareEvent.EndReason.init(rawValue:)) else { return nil }
            return .ended(shareID: id, seq: line.seq, reason: reason)
        default:
            return nil
        }
    }

    private struct Line: Decodable {
        var event: String
        var shareId: String
        var seq: Int
        var location: Location?
        var reason: String?
    }

    private struct Location: Decodable {
        var latitude: Double
        var longitude: Double
        var lastUpdateAt: String
        var startedAt: String
        var expiresAt: String
        var isActive: Bool
        var accuracy: Double?
        var altitude: Double?
        var speed: Double?
        var course: Double?
        var hdop: Double?
        var battery: Battery?
    }

    private struct Battery: Decodable {
        var level: Int
        var status: String
    }
}

/// What kind of event a queue row holds: what a backlog policy or a bound may drop.
enum EventKind: Int64 {
    /// An `updated` that is not the share's last: may be dropped by policy or bound.
    case update = 0
    /// The share's final `updated` (no longer active): never dropped.
    case finalUpdate = 1
    /// `ended`: never dropped.
    case ended = 2

    init(_ event: ShareEvent) {
        switch event {
        case .ended: self = .ended
        case .updated: self = event.isFinal ? .finalUpdate : .update
        }
    }
}
