/// Writes `message` to standard error as one line prefixed with `program` ("livelocd: …"): a
/// newline inside the message becomes a space, so one message is always one line (journald, grep).
/// The one writer of the executables' error and log lines.
package func writeErrorLine(program: String, _ message: String) {
    var line = Array(program.utf8)
    line.append(contentsOf: ": ".utf8)
    for byte in message.utf8 { line.append(byte == UInt8(ascii: "\n") ? UInt8(ascii: " ") : byte) }
    line.append(UInt8(ascii: "\n"))
    try? FileDescriptor.standardError.writeAll(line)
}
