import ArgumentParsing
import Serial
import SystemIO

/// `--serial PATH [--baud auto|RATE]`, shared by `liveloc share` and `liveloc fixes`.
enum SerialOptions {
    static let options: [String: Arguments.Kind] = ["--serial": .value, "--baud": .value]

    /// The lines the commands' `--help` shows for these options.
    static let help = """
          --serial PATH       read NMEA 0183 from a receiver on a serial port (e.g. /dev/ttyACM0 or
                              /dev/serial/by-id/…) without gpsd; waits for the device when it is
                              absent or unplugged, and opens it again
          --baud RATE         auto (default: try the usual rates until valid NMEA arrives), 4800, 9600,
                              19200, 38400, 57600 or 115200
        """

    /// The serial source, when `--serial` is given; nil otherwise.
    /// - Throws: `UsageError` for an empty path, a bad rate, `--baud` without `--serial`, or
    ///   `--serial` with another source.
    static func source(_ arguments: Arguments, log: Logger) throws(UsageError)
        -> SerialSource? {
        try device(arguments).map { SerialSource(path: $0.path, baud: $0.baud, log: log) }
    }

    /// The device and rate `--serial` and `--baud` name; nil without `--serial`.
    /// - Throws: as `source`.
    static func device(_ arguments: Arguments) throws(UsageError) -> (path: String, baud: SerialBaud)? {
        guard let path = arguments.value("--serial") else {
            if arguments.has("--baud") { throw UsageError("--baud needs --serial PATH") }
            return nil
        }
        guard !path.isEmpty else { throw UsageError("invalid value '' for --serial: expected a device path") }
        for other in ["--replay", "--gpsd", "--speed", "--loop", "--gpsd-device"] where arguments.has(other) {
            throw UsageError("--serial and \(other) exclude each other")
        }
        let baud = try arguments.value("--baud", as: SerialBaud.expected, SerialBaud.init(argument:)) ?? .automatic
        return (path, baud)
    }
}
