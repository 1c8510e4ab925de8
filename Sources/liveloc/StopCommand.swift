import ArgumentParsing
import Control
import SystemIO

/// `liveloc stop`: asks livelocd to stop the active share.
enum StopCommand: Command {
    static let name = "stop"
    static let summary = "stop livelocd's active share"
    static let help = """
        usage: liveloc stop [--socket PATH] [--timeout DURATION]

        Asks the running livelocd to stop the active share (its final update and `ended` go to the
        destinations). Prints the id of the share stopped, or 'no active share'.

        options:
        \(DaemonControl.optionsHelp)

        exit status: 0 when stopped or none was active, 1 when livelocd is not running, refused or
        did not answer in time, 2 on bad usage.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: DaemonControl.options)
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        let response = try DaemonControl.send(.stop, arguments)
        print(response.share.map { oneLineText("stopped \($0.id)") } ?? "no active share")
        return 0
    }
}
