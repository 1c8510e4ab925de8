import ArgumentParsing
import Daemon

/// What `liveloc start|stop|status` share: the `--socket` option and one request to the daemon.
enum DaemonControl {
    static let socketHelp = "  --socket PATH       livelocd's control socket (default $RUNTIME_DIRECTORY/control.sock or /run/livelocd/control.sock)"

    static func socketPath(_ arguments: Arguments) -> String {
        arguments.value("--socket") ?? DaemonConfiguration().controlSocket
    }

    /// Sends `request`; a failure reply becomes a `CommandFailure` with the daemon's message.
    static func send(_ request: ControlRequest, _ arguments: Arguments) throws -> ControlResponse {
        let response: ControlResponse
        do { response = try ControlClient.send(request, socketPath: socketPath(arguments)) } catch {
            throw CommandFailure("\(error)")
        }
        if let error = response.error, !response.ok {
            throw CommandFailure("\(error.message) (\(error.code.rawValue))")
        }
        return response
    }
}
