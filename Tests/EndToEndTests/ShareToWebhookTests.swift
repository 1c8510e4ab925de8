import Foundation
import Testing
import TestSupport

/// `liveloc share --webhook` against a real receiver on loopback that checks signatures itself.
@Suite struct ShareToWebhookTests {
    @Test func everyEventOfAShareReachesTheWebhookSignedAndInOrderBeforeLivelocExits() async throws {
        let directory = try Paths.temporaryDirectory("share-webhook")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secretFile)
        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }

        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Paths.fixture("fix-loss.nmea").path, "--speed", "0",
            "--webhook", receiver.url, "--webhook-secret-file", secretFile.path,
            "--outbox", directory.appendingPathComponent("outbox.sqlite").path,
        ], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.stdoutLines
        let delivered = receiver.deliveries()
        #expect(delivered.count == printed.count)
        #expect(delivered.map(\.body) == printed)
        #expect(delivered.allSatisfy { $0.signatureValid })
        #expect(Set(delivered.map(\.id)).count == delivered.count)
        #expect(printed.last?.contains(#""reason":"source-ended""#) == true)
    }

    @Test func aWebhookWithoutASecretFileIsAUsageError() async throws {
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Paths.fixture("fix-loss.nmea").path,
            "--webhook", "http://127.0.0.1:9/hook",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--webhook needs --webhook-secret-file"))
    }
}
