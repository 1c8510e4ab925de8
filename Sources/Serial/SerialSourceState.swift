/// What a `SerialSource` is doing, for status reports and log lines.
package enum SerialSourceState: Sendable, Equatable, CustomStringConvertible {
    /// Opening the device (at start, and after each wait).
    case opening
    /// The device is absent, unplugged or cannot be opened; the source tries again later.
    case waitingForDevice(reason: String)
    /// Open; trying the usual rates until valid checksummed NMEA arrives.
    case detectingBaud
    /// Open and reading NMEA at `baud` bits per second, detected or as configured.
    case open(baud: Int, detected: Bool)

    package var description: String {
        switch self {
        case .opening: "opening"
        case .waitingForDevice(let reason): "waiting for device (\(reason))"
        case .detectingBaud: "open, detecting baud rate"
        case .open(let baud, let detected): "open at \(baud) baud\(detected ? " (detected)" : "")"
        }
    }
}
