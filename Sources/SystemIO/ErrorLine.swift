/// Writes `message` to standard error as one line prefixed with `program` ("livelocd: …"): a
/// newline inside the message becomes a space and any other control character is escaped
/// (`oneLineText`), so one message is always one line (journald, grep).
/// The one writer of the executables' error and log lines.
package func writeErrorLine(program: String, _ message: String) {
    var line = Array(program.utf8)
    line.append(contentsOf: ": ".utf8)
    var spaced = ""
    spaced.unicodeScalars.append(contentsOf: message.unicodeScalars.lazy.map { $0 == "\n" ? " " : $0 })
    line.append(contentsOf: oneLineText(spaced).utf8)
    line.append(UInt8(ascii: "\n"))
    try? FileDescriptor.standardError.writeAll(line)
}
