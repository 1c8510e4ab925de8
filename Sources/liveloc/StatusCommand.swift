import ArgumentParsing
import Daemon
import JSONCoding

/// `liveloc status`: the daemon's source, active share and sinks.
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show livelocd's source, active share and sinks"
    static let help = """
        usage: liveloc status [--json] [--socket PATH]

        Shows the running livelocd's source (state, fix or no fix, age of the last fix), its active
        share (id, start, expiry, time left, last position, updates sent) and its sinks.

        options:
          --json              the status as one JSON object (the `status` of the protocol's reply)
        \(DaemonControl.socketHelp)

        exit status: 0, or 1 when livelocd is not running or refused.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: ["--json": .flag, "--socket": .value])
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        let response = try DaemonControl.send(ControlRequest(op: "status"), arguments)
        guard let status = response.status else { throw CommandFailure("livelocd sent no status") }
        if arguments.has("--json") {
            print(String(decoding: try JSON.encode(status), as: UTF8.self))
        } else {
            print(text(status))
        }
        return 0
    }

    static func text(_ status: StatusReport) -> String {
        let source = status.source
        var lines: [String] = []
        var sourceLine = "source:  \(source.kind), \(source.state)\(source.detail.map { " (\($0))" } ?? ""), \(source.fix ? "fix" : "no fix")"
        if let time = source.lastFixTime, let age = source.lastFixAgeSeconds {
            sourceLine += " (last fix \(time), \(seconds(age)) ago)"
        }
        sourceLine += ", \(source.fixesReceived) fixes"
        if let error = source.lastError { sourceLine += "; last error: \(error)" }
        lines.append(sourceLine)
        if let share = status.share {
            lines.append("share:   \(share.id)")
            lines.append("  started:       \(share.startedAt)")
            lines.append("  expires:       \(share.expiresAt)\(share.secondsLeft.map { " (\(seconds($0)) left)" } ?? "")")
            if let position = share.lastPosition {
                lines.append("  last position: \(position.latitude), \(position.longitude) at \(position.time)")
            } else {
                lines.append("  last position: none yet")
            }
            lines.append("  updates sent:  \(share.updatesSent) (seq \(share.seq))")
        } else {
            lines.append("share:   none")
        }
        let sinks = status.sinks.map { sink in
            "\(sink.name): \(sink.delivered) delivered, \(sink.failed) failed\(sink.lastError.map { " (last error: \($0))" } ?? "")"
        }
        lines.append("sinks:   " + (sinks.isEmpty ? "none" : sinks.joined(separator: "; ")))
        lines.append("clock:   \(status.clock)")
        return lines.joined(separator: "\n")
    }

    /// `42 s`, `12m 03s`, `7h 59m`.
    static func seconds(_ value: Double) -> String {
        let whole = Int(value.rounded(.down))
        if whole < 60 { return value < 10 ? "\((value * 10).rounded() / 10) s" : "\(whole) s" }
        if whole < 3600 { return "\(whole / 60)m \(pad(whole % 60))s" }
        return "\(whole / 3600)h \(pad(whole / 60 % 60))m"
    }

    private static func pad(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
}
