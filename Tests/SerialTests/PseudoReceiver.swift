import Foundation
import Glibc
import LiveLocation
import Synchronization
import SystemIO
import TestSupport

/// A pseudo-terminal pair standing in for a receiver on a serial port: the source under test opens
/// the slave side, through a symbolic link as a `/dev/serial/by-id/…` name is, and the test writes
/// NMEA into the master side. The kernel's tty layer is real (termios, exclusive open, hang-up when
/// the master closes); the line has no bit timing: a baud rate on a pty is a setting only.
final class PseudoReceiver: @unchecked Sendable {
    let master: Int32
    /// The test's own descriptor of the slave, opened before the source's: it reads the termios the
    /// source set (its speed, its exclusivity) and never reads data.
    let slave: Int32
    let slavePath: String
    private var closed = false

    init() throws {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw SystemError("openpty") }
        self.master = master
        self.slave = slave
        var name = [CChar](repeating: 0, count: 128)
        guard ttyname_r(slave, &name, name.count) == 0 else { throw SystemError("ttyname_r") }
        slavePath = String(cString: name)
        // Raw from the start, so that nothing written before the source opens is echoed back.
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        // At a rate no receiver uses, so that every rate the test sees later is one the source set.
        cfsetispeed(&settings, speed_t(B1200))
        cfsetospeed(&settings, speed_t(B1200))
        tcsetattr(slave, TCSANOW, &settings)
    }

    deinit { unplug() }

    /// Writes all of `bytes` to the master side.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { usleep(1000); continue }
                return
            }
            offset += written
        }
    }

    /// Writes `text` at the pace of a 9600 baud line (960 bytes a second: 8 data bits, a start and
    /// a stop bit per byte), in pieces of 48 bytes every 50 ms, as a UART delivers a receiver's
    /// continuous output.
    func writePaced(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 48)
            write(Array(bytes[offset..<end]))
            offset = end
            usleep(50_000)
        }
    }

    /// The input speed of the slave side, as the source last set it (nil for 1200, the speed the
    /// pty starts at here).
    var readerBaud: Int? {
        FileDescriptor(rawValue: slave).inputBaudIfKnown
    }

    /// Whether the slave side is exclusive (TIOCGEXCL).
    var isExclusive: Bool {
        (try? FileDescriptor(rawValue: slave).isExclusive()) ?? false
    }

    /// The receiver unplugged: both of the test's ends closed, so the source's side hangs up.
    func unplug() {
        guard !closed else { return }
        closed = true
        Glibc.close(master)
        Glibc.close(slave)
    }
}

extension FileDescriptor {
    fileprivate var inputBaudIfKnown: Int? { (try? inputBaud()) ?? nil }
}
