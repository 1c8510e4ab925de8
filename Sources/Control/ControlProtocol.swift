/// The control protocol, version 1: one JSON object per line each way over a Unix stream socket.
///
/// Requests: `{"v":1,"op":"start","duration":"15m"|"1h"|"8h"}`, `{"v":1,"op":"stop"}`,
/// `{"v":1,"op":"status"}`. Each gets one reply line, `{"v":1,"ok":true,…}` or
/// `{"v":1,"ok":false,"error":{"code":"…","message":"…"}}`. A connection may carry several requests,
/// one after another. A request line is at most `maximumRequestBytes` bytes and must be complete
/// within `requestTimeout` of the moment the daemon starts waiting for it (the connection's accept,
/// or its previous reply); otherwise it gets an error reply and the connection is closed.
package enum ControlProtocol {
    package static let version = 1
    /// The longest request line, bytes (without its newline).
    package static let maximumRequestBytes = 4096
    /// How long a whole request line may take to arrive, however it trickles in; also the bound on
    /// writing one reply to a caller that does not read.
    package static let requestTimeout: Duration = .seconds(5)

    /// The control socket when neither `control.socket` nor `--socket` names one:
    /// `$RUNTIME_DIRECTORY/control.sock` (systemd's `RuntimeDirectory=`), else `/run/livelocd/control.sock`.
    package static func defaultSocketPath(runtimeDirectory: String?) -> String {
        let directory = runtimeDirectory.flatMap { $0.split(separator: ":").first.map(String.init) }
        return (directory ?? "/run/livelocd") + "/control.sock"
    }
}
