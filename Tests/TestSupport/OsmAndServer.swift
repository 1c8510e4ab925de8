import Foundation

/// One request as `scripts/osmand-server.py` (the loopback OsmAnd/Traccar server) saw it.
public struct OsmAndRecord: Decodable, Sendable, Equatable {
    public var method: String
    public var path: String
    /// The parameters (query string, or form body when the query string has none), as text.
    public var params: [String: String]
    /// True when the parameters came from the body.
    public var inBody: Bool
    /// The HTTP status answered (0 when the connection was closed without an answer).
    public var status: Int
    /// "auto" (the protocol) or the script token used.
    public var token: String
    /// Arrival time, Unix seconds.
    public var received: Double

    enum CodingKeys: String, CodingKey {
        case method, path, params, status, token, received
        case inBody = "in_body"
    }

    /// A parameter as a number.
    public func number(_ name: String) -> Double? { params[name].flatMap(Double.init) }
}

/// The loopback OsmAnd server (see `scripts/osmand-server.py`): what Traccar runs on port 5055.
public final class OsmAndServer: Sendable {
    public let server: LoopbackScriptServer
    /// Whether it serves HTTPS.
    public let https: Bool

    /// `http://127.0.0.1:PORT` (`https://` with `tls`): what `traccar.url` is set to.
    public var url: String { "\(https ? "https" : "http")://127.0.0.1:\(server.port)" }

    /// Starts the server knowing `devices`; `script` answers the first requests ("500", "close");
    /// with `tls` (certificate and key PEM files) it serves HTTPS.
    public static func start(devices: [String], records: URL, script: [String] = [], port: Int = 0,
                             tls: (certificate: URL, key: URL)? = nil) async throws -> OsmAndServer {
        var arguments = ["--devices", devices.joined(separator: ","), "--script", script.joined(separator: ",")]
        if let tls { arguments += ["--tls-cert", tls.certificate.path, "--tls-key", tls.key.path] }
        let server = try await LoopbackScriptServer.start(script: "osmand-server.py", arguments: arguments, records: records, port: port)
        return OsmAndServer(server: server, https: tls != nil)
    }

    private init(server: LoopbackScriptServer, https: Bool) {
        self.server = server
        self.https = https
    }

    public func stop() { server.stop() }

    /// Every request so far, in arrival order.
    public func records() -> [OsmAndRecord] { server.records(as: OsmAndRecord.self) }

    /// Waits (at most `timeout`) until `condition` holds for the records; returns them either way.
    @discardableResult
    public func waitForRecords(timeout: Duration = .seconds(20), until condition: ([OsmAndRecord]) -> Bool) async -> [OsmAndRecord] {
        await server.waitForRecords(as: OsmAndRecord.self, timeout: timeout, until: condition)
    }
}
