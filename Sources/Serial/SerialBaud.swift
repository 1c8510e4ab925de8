import SystemIO

/// The speed of a serial receiver: a fixed rate, or `automatic` (try the usual rates until valid
/// checksummed NMEA arrives).
package enum SerialBaud: Sendable, Equatable, CustomStringConvertible {
    case automatic
    /// Bits per second, one of `SerialBaud.rates`.
    case fixed(Int)

    /// The rates offered: 4800, 9600, 19200, 38400, 57600, 115200.
    package static let rates = Terminal.rates

    /// The order `automatic` tries them in: the common defaults of receivers first (9600 for most
    /// modules, 4800 for older ones and NMEA's own, 38400 for u-blox timing and RTK, 115200 for
    /// high-rate receivers).
    package static let detectionOrder = [9600, 4800, 38400, 115200, 19200, 57600]

    /// `auto`, or a rate from `rates` (`9600`); nil for anything else.
    package init?(argument: String) {
        if argument == "auto" {
            self = .automatic
        } else if let rate = Int(argument), Self.rates.contains(rate) {
            self = .fixed(rate)
        } else {
            return nil
        }
    }

    /// `auto` or the rate, as the option is written.
    package var description: String {
        switch self {
        case .automatic: "auto"
        case .fixed(let rate): "\(rate)"
        }
    }

    /// What an option or key expects, for error messages.
    package static let expected = "auto, 4800, 9600, 19200, 38400, 57600 or 115200"
}
