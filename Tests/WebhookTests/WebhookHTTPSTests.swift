import Delivery
import Webhook
import Foundation
import Testing
import TestSupport

private let opensslPath = "/usr/bin/openssl"

@Suite("Webhook over HTTPS", .serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath)))
struct WebhookHTTPSTests {
    /// A self-signed certificate for 127.0.0.1 and its key, made with the openssl command.
    private func selfSignedCertificate(in directory: URL) async throws -> (certificate: URL, key: URL) {
        let certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        let result = try await runProcess(URL(fileURLWithPath: opensslPath), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path,
            "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ], timeout: .seconds(30))
        try #require(result.status == 0, "openssl: \(result.stderr)")
        return (certificate, key)
    }

    @Test func caFileIsTrustedForTheEndpointCertificate() async throws {
        let fixture = try WebhookFixture()
        let tls = try await selfSignedCertificate(in: fixture.directory)
        let receiver = try await WebhookReceiver.start(secretFile: fixture.secretFile, records: fixture.records, tls: tls)
        defer { receiver.stop() }
        #expect(receiver.url.hasPrefix("https://"))
        let status = try await fixture.withSink(fixture.configuration(url: receiver.url, caFile: tls.certificate.path)) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(shareEvents(updates: 1)[0])
                return await waitForStatus(sink) { $0.delivered == 1 }
            }
        }
        #expect(status.delivered == 1)
        #expect(receiver.deliveries().first?.signatureValid == true)
    }

    @Test func certificateOutsideTheSystemStoreIsRefusedAndRetried() async throws {
        let fixture = try WebhookFixture()
        let tls = try await selfSignedCertificate(in: fixture.directory)
        let receiver = try await WebhookReceiver.start(secretFile: fixture.secretFile, records: fixture.records, tls: tls)
        defer { receiver.stop() }
        let status = try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(shareEvents(updates: 1)[0])
                return await waitForStatus(sink) { $0.failedAttempts >= 2 }
            }
        }
        #expect(status.delivered == 0)
        #expect(status.pending == 1)
        #expect(status.lastError?.lowercased().contains("certificate") == true)
        #expect(receiver.records().isEmpty)
    }
}
