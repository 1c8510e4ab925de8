/// The device's battery when a position was shared: its charge and whether it is charging. It
/// travels in the event (`location.battery`), so that the journal keeps it with the position and
/// every destination sends the value of that moment, however late it delivers.
public struct BatteryReading: Sendable, Equatable, Codable {
    /// Whether the battery is charging, as the power supply reports it.
    public enum Status: String, Sendable, Equatable, Codable, CaseIterable {
        /// Not reported, or a state that is neither (Linux: `Unknown`, `Not charging`).
        case unknown
        /// Running on the battery (Linux: `Discharging`).
        case discharging
        /// On external power, charging (Linux: `Charging`).
        case charging
        /// On external power, full (Linux: `Full`).
        case full

        /// The number the journal stores.
        var code: Int {
            switch self {
            case .unknown: 0
            case .discharging: 1
            case .charging: 2
            case .full: 3
            }
        }

        init?(code: Int) {
            guard let status = Status.allCases.first(where: { $0.code == code }) else { return nil }
            self = status
        }

        /// On external power (charging or full).
        public var isOnExternalPower: Bool { self == .charging || self == .full }
    }

    /// Charge, percent (0-100).
    public var level: Int
    public var status: Status

    /// - Parameter level: clamped to 0-100.
    public init(level: Int, status: Status) {
        self.level = min(max(level, 0), 100)
        self.status = status
    }
}

extension BatteryReading {
    /// The reading as one number (level * 4 + status code), for compact storage; nil for nil.
    package var packed: Double { Double(level * 4 + status.code) }

    /// The reading a `packed` number holds; nil when it is not one.
    package init?(packed: Double) {
        guard packed.isFinite, packed >= 0, packed <= 403, packed == packed.rounded() else { return nil }
        let number = Int(packed)
        guard let status = Status(code: number % 4) else { return nil }
        self.init(level: number / 4, status: status)
    }
}

/// Where the broadcaster reads the battery for each position it shares: the latest reading, kept
/// up to date elsewhere (the daemon reads the power supply on a thread of its own every minute),
/// so that reading it here costs one lock and no system call.
public protocol BatteryGauge: Sendable {
    /// The latest reading; nil when there is none (no battery, or it could not be read).
    var latest: BatteryReading? { get }
}

