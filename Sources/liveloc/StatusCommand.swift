import ArgumentParsing
import Control
import JSONCoding

/// `liveloc status`: the daemon's source, active share and sinks.
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show livelocd's source, active share and sinks"
    static let help = """
        usage: liveloc status [--json] [--socket PATH] [--timeout SECONDS]

        Shows the running livelocd's source (state, fix or no fix, age of the last fix), its active
        share (id, start, expiry, time left, last position, updates sent) and its sinks.

        options:
          --json              the status as one JSON object (the `status` of the protocol's reply)
        \(DaemonControl.optionsHelp)

        exit status: 0, 1 when livelocd is not running, refused or did not answer in time, 2 on
        bad usage.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: DaemonControl.options.merging(["--json": .flag]) { $1 })
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        let response = try DaemonControl.send(.status, arguments)
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
        var sourceLine = "source:  \(source.kind), \(source.state.rawValue)\(source.detail.map { " (\($0))" } ?? ""), \(source.fix ? "fix" : "no fix")"
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
        let sinks = status.sinks.map(sinkText)
        lines.append("sinks:   " + (sinks.isEmpty ? "none" : sinks.joined(separator: "; ")))
        lines.append("clock:   \(status.clock)")
        return lines.joined(separator: "\n")
    }

    /// A direct sink: `stdout: 120 delivered, 0 failed`. A queued destination, whose events count
    /// only once the far end acknowledged them: `webhook: retrying, 3 pending, 117 acknowledged,
    /// 0 dropped (last error: HTTP 503)`.
    static func sinkText(_ sink: SinkStatus) -> String {
        guard let delivery = sink.delivery else {
            return "\(sink.name): \(sink.delivered) delivered, \(sink.failed) failed\(sink.lastError.map { " (last error: \($0))" } ?? "")"
        }
        return "\(sink.name): \(delivery.state.rawValue), \(delivery.pending) pending, \(delivery.acknowledged) acknowledged, "
            + "\(delivery.dropped) dropped\(delivery.lastError.map { " (last error: \($0))" } ?? "")"
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
