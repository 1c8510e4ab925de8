#if canImport(Glibc)
import Glibc
#endif

/// The typed terminal calls a serial receiver needs (termios and ioctl), on a descriptor opened
/// with `FileDescriptor.openTerminal(_:)`.
package enum Terminal {
    /// The speeds a serial receiver is found at, in bits per second.
    package static let rates = [4800, 9600, 19200, 38400, 57600, 115200]

    /// The termios constant for `baud`; nil for a rate this layer does not offer.
    static func speed(_ baud: Int) -> speed_t? {
        switch baud {
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        default: nil
        }
    }

    /// The rate of a termios speed constant; nil for others.
    static func baud(_ speed: speed_t) -> Int? {
        rates.first { Self.speed($0) == speed }
    }
}

extension FileDescriptor {
    /// Opens a terminal device (a UART, a USB serial adapter, a pseudo-terminal) for reading and
    /// writing: not as the controlling terminal (O_NOCTTY), non-blocking (reads follow `poll`), and
    /// closed on exec. Symbolic links such as `/dev/serial/by-id/…` are followed.
    /// - Throws: `SystemError` (`open PATH: …`), e.g. ENOENT while the device is unplugged, EBUSY
    ///   when another program holds it exclusively, EACCES without the `dialout` group.
    package static func openTerminal(_ path: String) throws(SystemError) -> FileDescriptor {
        let fd = retryingOnInterrupt { open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("open", target: path) }
        let descriptor = FileDescriptor(rawValue: fd)
        guard isatty(fd) == 1 else {
            let error = SystemError("open", target: path, errno: .notTerminal)
            descriptor.close()
            throw error
        }
        return descriptor
    }

    /// Makes the terminal exclusive (TIOCEXCL): further opens fail with EBUSY, except root's.
    package func makeExclusive() throws(SystemError) {
        guard ioctl(rawValue, UInt(TIOCEXCL)) == 0 else { throw SystemError("ioctl TIOCEXCL") }
    }

    /// Whether the terminal is exclusive (TIOCGEXCL).
    package func isExclusive() throws(SystemError) -> Bool {
        var flag: Int32 = 0
        guard ioctl(rawValue, tiocgexcl, &flag) == 0 else { throw SystemError("ioctl TIOCGEXCL") }
        return flag != 0
    }

    /// The terminal's settings, to restore them when done.
    package func terminalSettings() throws(SystemError) -> TerminalSettings {
        var settings = termios()
        guard tcgetattr(rawValue, &settings) == 0 else { throw SystemError("tcgetattr") }
        return TerminalSettings(value: settings)
    }

    /// Puts the terminal back as `settings` were.
    package func restoreTerminal(_ settings: TerminalSettings) {
        var value = settings.value
        _ = tcsetattr(rawValue, TCSANOW, &value)
    }

    /// Raw mode at `baud` (one of `Terminal.rates`): 8 data bits, no parity, one stop bit, no flow
    /// control, no echo, no line editing or character translation, modem lines ignored (CLOCAL),
    /// receiver on (CREAD).
    /// - Throws: `SystemError` (EINVAL for a rate not offered).
    package func configureRaw(baud: Int) throws(SystemError) {
        guard let speed = Terminal.speed(baud) else { throw SystemError("cfsetspeed", errno: .invalidArgument) }
        var settings = termios()
        guard tcgetattr(rawValue, &settings) == 0 else { throw SystemError("tcgetattr") }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        settings.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0 else {
            throw SystemError("cfsetspeed")
        }
        guard tcsetattr(rawValue, TCSANOW, &settings) == 0 else { throw SystemError("tcsetattr") }
    }

    /// The terminal's input speed, in bits per second; nil for a rate not in `Terminal.rates`.
    package func inputBaud() throws(SystemError) -> Int? {
        var settings = termios()
        guard tcgetattr(rawValue, &settings) == 0 else { throw SystemError("tcgetattr") }
        return Terminal.baud(cfgetispeed(&settings))
    }

    /// Discards what was received and not yet read (TCIFLUSH).
    package func discardInput() {
        _ = tcflush(rawValue, TCIFLUSH)
    }

    /// Reads what is there without waiting (the descriptor is non-blocking): the count read, 0 at
    /// end of file (a terminal that hung up), nil when nothing is waiting (EAGAIN).
    /// - Throws: `SystemError` (EIO or ENODEV when a device was unplugged).
    package func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        let count = retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
        throw SystemError("read")
    }
}

/// A terminal's saved termios settings.
package struct TerminalSettings: @unchecked Sendable {
    fileprivate let value: termios
}

/// TIOCGEXCL, `_IOR('T', 0x40, int)` (Linux 3.8+, asm-generic encoding: x86-64, arm64), which
/// Glibc's module does not export.
private let tiocgexcl: UInt = 0x8004_5440

extension Terminal {
    /// The size of the terminal on `fd` (TIOCGWINSZ) in character cells; nil when `fd` is not a
    /// terminal or the terminal reports no size.
    package static func size(of fd: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
