import ArgumentParsing
import Control
import LiveLocation
import SystemIO

/// `liveloc start`: asks livelocd to start a share and prints its id.
enum StartCommand: Command {
    static let name = "start"
    static let summary = "start a share in livelocd and print its id"
    static let help = """
        usage: liveloc start --duration 15m|1h|8h [--id ID] [--socket PATH] [--timeout DURATION]

        Asks the running livelocd to start a live-location share; an active share is superseded.
        Prints the new share's id. With a share link destination (link.relay_url), prints the
        share's link on stderr too, as a line 'link: URL', once livelocd made it (at the share's
        first position; waits up to 10 s for it, then says so): the link holds the share's key.

        options:
          --duration D        15m, 1h or 8h (required)
          --id ID             the share's id, the caller's own (1 to 64 characters of A-Za-z0-9._:-);
                              default: a new random one. Every destination uses it as the share id.
                              An id livelocd's journal has seen (the active share's, an ended one's,
                              one from before a restart) is refused: an id starts one share only.
        \(DaemonControl.optionsHelp)

        exit status: 0 when started, 1 when livelocd is not running, refused or did not answer in
        time, 2 on bad usage.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: DaemonControl.options.merging(["--duration": .value, "--id": .value]) { $1 })
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        guard let duration = try arguments.value("--duration", as: "15m, 1h or 8h", ShareDuration.init(argument:)) else {
            throw UsageError("missing --duration 15m|1h|8h")
        }
        let id = try arguments.value("--id", as: ShareID.callerIDRule) { ShareID.isValidCallerID($0) ? ShareID(rawValue: $0) : nil }
        let response = try DaemonControl.send(.start(duration, id: id), arguments)
        guard let share = response.share else { throw CommandFailure("livelocd did not name the new share") }
        print(oneLineText("\(share.id)"))  // the daemon's word: one line whatever it sent
        try await printShareLink(of: share.id, arguments)
        return 0
    }

    /// With a `link` destination, waits (up to 10 s) for the share's link and prints it on stderr.
    private static func printShareLink(of id: String, _ arguments: Arguments) async throws {
        for attempt in 0..<40 {
            guard let status = try? DaemonControl.send(.status, arguments).status,
                  let sink = status.destinations.first(where: { $0.name == "link" }) else { return }
            if let link = sink.shareLink, status.share?.id == id {
                writeStandardError("link: " + oneLineText(link))
                return
            }
            if attempt < 39 { try await Task.sleep(for: .milliseconds(250)) }
        }
        writeStandardError("link: not made yet (livelocd makes it at the share's first position); liveloc status shows it")
    }

    /// A line on stderr as it is (not a log line: `liveloc share` prints `link: URL` alike).
    private static func writeStandardError(_ line: String) {
        try? FileDescriptor(rawValue: 2).writeAll(Array((line + "\n").utf8))
    }
}
