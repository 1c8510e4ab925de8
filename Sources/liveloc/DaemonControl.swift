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
          --timeout SECONDS   give up after this long, connecting included (default 10)
        """

    static let options: [String: Arguments.Kind] = ["--socket": .value, "--timeout": .value]

    static func socketPath(_ arguments: Arguments) -> String {
        arguments.value("--socket")
            ?? ControlProtocol.defaultSocketPath(runtimeDirectory: getenv("RUNTIME_DIRECTORY").map { String(cString: $0) })
    }

    /// Sends `request`; a failure reply becomes a `CommandFailure` with the daemon's message.
    /// - Throws: `UsageError` for a bad `--timeout`, `CommandFailure` (one line, exit 1) otherwise.
    static func send(_ request: ControlRequest, _ arguments: Arguments) throws -> ControlResponse {
        let seconds = try arguments.value("--timeout", as: "a number of seconds > 0") { text in
            Double(text).flatMap { $0.isFinite && $0 > 0 && $0 <= 3600 ? $0 : nil }
        }
        let timeout = seconds.map { Duration.milliseconds(Int64(($0 * 1000).rounded(.up))) } ?? ControlClient.defaultTimeout
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
