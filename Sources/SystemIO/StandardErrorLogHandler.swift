#if canImport(Glibc)
import Glibc
#endif

/// Writes each line to standard error as `program: message` (one line, control characters escaped:
/// `writeErrorLine`). When standard error is the journal (`$JOURNAL_STREAM` names its device and
/// inode, as systemd sets it), each line starts with its priority, `<3>` to `<7>`, which journald
/// takes off and keeps as the entry's priority.
package struct StandardErrorLogHandler: LogHandler {
    package let program: String
    package let prefixesPriority: Bool

    /// - Parameter journalStream: `$JOURNAL_STREAM` (read from the environment by default).
    package init(program: String, journalStream: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }) {
        self.program = program
        prefixesPriority = journalStream.map(Self.isStandardError) ?? false
    }

    package func write(_ level: LogLevel, _ message: String) {
        writeErrorLine(program: prefixesPriority ? "<\(level.rawValue)>\(program)" : program, message)
    }

    /// Whether `journalStream` (`DEVICE:INODE`, decimal, as systemd sets it) is standard error's own
    /// file: a child whose standard error was redirected inherits the variable but not the stream.
    package static func isStandardError(_ journalStream: String) -> Bool {
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
