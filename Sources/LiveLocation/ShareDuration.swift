/// How long a live-location share lasts: the three choices a user gets, as in Telegram.
public enum ShareDuration: String, Sendable, CaseIterable, Codable {
    case fifteenMinutes = "15m"
    case oneHour = "1h"
    case eightHours = "8h"

    /// Parses the command-line and protocol spelling: `15m`, `1h` or `8h`.
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    /// The longest share: no share, extended or not, ends further than this from now.
    public static let longest = ShareDuration.eightHours

    public var duration: Duration {
        switch self {
        case .fifteenMinutes: .seconds(15 * 60)
        case .oneHour: .seconds(3600)
        case .eightHours: .seconds(8 * 3600)
        }
    }
}
