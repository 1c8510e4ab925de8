import ArgumentParsing
import Control
import LiveLocation
import SystemIO

/// `liveloc extend`: asks livelocd to move the active share's end later.
enum ExtendCommand: Command {
    static let name = "extend"
    static let summary = "add time to livelocd's active share"
    static let help = """
        usage: liveloc extend 15m|1h|8h [--socket PATH] [--timeout DURATION]

        Asks the running livelocd to add that much to the active share's remaining time, never
        beyond 8 h from now (the longest share). The share keeps its id, its start and its seq; its
        next update carries the new end to every destination. Prints the share's id and its new end:
          SHARE_ID until 2026-03-14T09:00:00.000Z (45 min left)
        with ', capped at 8 h from now' when the amount would have gone further. Refused in one line
        when no share is active or its time is up (it is ending: start a new one).

        options:
        \(DaemonControl.optionsHelp)

        exit status: 0 when extended, 1 when no share is active, it is ending, livelocd is not
        running, refused or did not answer in time, 2 on bad usage.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: DaemonControl.options)
        guard let word = arguments.operands.first else { throw UsageError("missing how much: liveloc extend 15m|1h|8h") }
        guard arguments.operands.count == 1 else { throw UsageError("unexpected argument '\(arguments.operands[1])'") }
        guard let amount = ShareDuration(argument: word) else { throw UsageError("cannot extend by '\(word)': expected 15m, 1h or 8h") }
        let response = try DaemonControl.send(.extend(amount), arguments)
        guard let share = response.share else { throw CommandFailure("livelocd did not name the share extended") }
        var notes: [String] = []
        if let seconds = share.secondsLeft {
            notes.append("\(StatusText.wholeSeconds(seconds).glanceText) left")
        }
        if response.extended?.capped == true { notes.append("capped at \(ShareDuration.longest.rawValue) from now") }
        // The daemon's words: one line whatever it sent.
        print(oneLineText("\(share.id) until \(share.expiresAt)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")))
        return 0
    }
}
