import ArgumentParsing
import Control
#if canImport(Glibc)
import Glibc
#endif

/// What `liveloc start|stop|status` share: the `--socket` and `--timeout` options and one request
/// to the daemon, bounded as a whole.
enum DaemonControl {
    static let optionsHelp = """
          --socket PATH       livelocd's control socket (default $RUNTIME_DIRECTORY/control.sock or /run/livelocd/control.sock)
          --timeout D         give up after this long, connecting included: 10s, 500ms (default 10s)
        """

    static let options: [String: Arguments.Kind] = ["--socket": .value, "--timeout": .value]

    static func socketPath(_ arguments: Arguments) -> String {
        arguments.value("--socket")
            ?? ControlProtocol.defaultSocketPath(runtimeDirectory: getenv("RUNTIME_DIRECTORY").map { String(cString: $0) })
    }

    /// Sends `request`; a failure reply becomes a `CommandFailure` with the daemon's message.
    /// - Throws: `UsageError` for a bad `--timeout`, `CommandFailure` (one line, exit 1) otherwise.
    static func send(_ request: ControlRequest, _ arguments: Arguments) throws -> ControlResponse {
        let timeout = try arguments.value("--timeout", as: "\(Duration.textSyntax), more than 0 and at most 1h") { text in
            Duration(durationText: text).flatMap { $0 > .zero && $0 <= .seconds(3600) ? $0 : nil }
        } ?? ControlClient.defaultTimeout
        let response: ControlResponse
        do { response = try ControlClient.send(request, socketPath: socketPath(arguments), timeout: timeout) } catch {
            throw CommandFailure("\(error)")
        }
        if let error = response.error, !response.ok {
            throw CommandFailure("\(error)")
        }
        return response
    }
}
