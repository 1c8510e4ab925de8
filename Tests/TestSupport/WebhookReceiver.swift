import Foundation

/// One request as `scripts/webhook-receiver.py` saw it; its signature checked by Python's hmac.
public struct WebhookRecord: Decodable, Sendable, Equatable {
    public var id: String
    public var timestamp: String
    public var signature: String
    public var signatureValid: Bool
    public var timestampFresh: Bool
    public var body: String
    public var contentType: String
    public var path: String
    /// The scripted answer used: "200", "500", "429:2", "drip:3", "close", … or "GET /path".
    public var response: String
    /// True when the receiver had already acknowledged (2xx) this webhook-id.
    public var duplicate: Bool
    /// Arrival time, Unix seconds.
    public var received: Double

    /// Whether the receiver answered this request with a complete 2xx.
    public var acknowledged: Bool { response.hasPrefix("2") }

    enum CodingKeys: String, CodingKey {
        case id, timestamp, signature, body, path, response, duplicate, received
        case signatureValid = "signature_valid", timestampFresh = "timestamp_fresh", contentType = "content_type"
    }
}

/// The Python webhook receiver as a process on 127.0.0.1, recording into a JSON-lines file that
/// survives restarts of the receiver (start another one with the same `records` and `port`).
public final class WebhookReceiver: Sendable {
    public let port: Int
    public let recordsFile: URL
    private let server: LoopbackScriptServer

    /// `http://127.0.0.1:PORT/hook` (or https with `tls`).
    public let url: String

    /// Starts the receiver and waits (at most 10 s) until it listens.
    /// - Parameters:
    ///   - script: answers for the first requests, in order (see the script's help); then `fallback`.
    ///   - port: 0 for a free port.
    ///   - tls: certificate and key PEM files: serve HTTPS.
    public static func start(
        secretFile: URL, records: URL, port: Int = 0, script: [String] = [], fallback: String = "200",
        tls: (certificate: URL, key: URL)? = nil
    ) async throws -> WebhookReceiver {
        var arguments = ["--secret-file", secretFile.path, "--script", script.joined(separator: ","), "--default", fallback]
        if let tls { arguments += ["--tls-cert", tls.certificate.path, "--tls-key", tls.key.path] }
        let server = try await LoopbackScriptServer.start(script: "webhook-receiver.py", arguments: arguments,
                                                          records: records, port: port)
        return WebhookReceiver(server: server, records: records, https: tls != nil)
    }

    private init(server: LoopbackScriptServer, records: URL, https: Bool) {
        self.server = server
        self.port = server.port
        self.recordsFile = records
        self.url = "\(https ? "https" : "http")://127.0.0.1:\(server.port)/hook"
    }

    /// Stops the receiver and waits for it to exit.
    public func stop() { server.stop() }

    /// Every request recorded so far, in arrival order (all receivers that used the records file).
    public func records() -> [WebhookRecord] {
        guard let data = try? Data(contentsOf: recordsFile) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(WebhookRecord.self, from: $0) }
    }

    /// The acknowledged, non-duplicate requests: what an idempotent consumer processed, in order.
    public func deliveries() -> [WebhookRecord] {
        records().filter { $0.acknowledged && !$0.duplicate }
    }

    /// Waits until `condition` holds for the records, re-reading the file every 20 ms for at most
    /// `timeout`; returns the records either way (the caller's #expect tells which).
    @discardableResult
    public func waitForRecords(timeout: Duration = .seconds(20), until condition: ([WebhookRecord]) -> Bool)
        async -> [WebhookRecord]
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = records()
            if condition(current) || ContinuousClock.now >= deadline { return current }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

public struct ReceiverError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
