import Delivery
import Webhook
import Foundation
import SystemIO
import Testing
import TestSupport

@Suite("Webhook secrets")
struct WebhookSecretTests {
    /// 24 and 32 random-looking bytes, base64.
    static let key24 = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let key32 = "whsec_" + Data((0..<32).map { UInt8($0 * 7 & 0xFF) }).base64EncodedString()

    private func secretFile(_ text: String, mode: mode_t = 0o600) throws -> String {
        let file = try Paths.temporaryDirectory("secret").appendingPathComponent("secrets")
        try writeSecretFile(text, to: file)
        chmod(file.path, mode)
        return file.path
    }

    @Test func secretFileSkipsCommentsAndBlankLinesAndKeepsOrder() throws {
        let path = try secretFile("# rotation\n\n\(Self.key24)\n  \(Self.key32)  \n")
        let secrets = try WebhookSecret.load(fromFile: path)
        #expect(secrets.count == 2)
        #expect(secrets[1] == WebhookSecret(Self.key32))
    }

    @Test func malformedSecretIsReportedByLineWithoutItsContent() throws {
        let path = try secretFile("\(Self.key24)\nsupersecretvalue\n")
        #expect {
            _ = try WebhookSecret.load(fromFile: path)
        } throws: { error in
            "\(error)".contains("line 2") && !"\(error)".contains("supersecretvalue")
        }
    }

    @Test func emptySecretFileIsAnError() throws {
        let path = try secretFile("# nothing\n")
        #expect(throws: WebhookError.noSecret(path: path)) { try WebhookSecret.load(fromFile: path) }
    }

    /// Standard Webhooks' published example (the specification's and its reference libraries'):
    /// secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, id msg_p5jXN8AQM9LWM0D4loKWxJek, timestamp
    /// 1614265330, body {"test": 2432232314}. The other values are Python's hmac and base64.
    @Test func oneSignerSignsMessageAfterMessageAsStandardWebhooksSays() throws {
        let signer = WebhookSigner(secrets: [try #require(WebhookSecret(Self.key24))])
        let example = (id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: Int64(1_614_265_330), body: Array(#"{"test": 2432232314}"#.utf8))
        let published = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        #expect(signer.signature(id: example.id, timestamp: example.timestamp, body: example.body) == published)
        // Another message, longer than a hash block, then the example again: the kept keys carry nothing over.
        let longer = Array(String(repeating: #"{"event":"updated","seq":2}"#, count: 10).utf8)
        #expect(signer.signature(id: "evt_abc_2", timestamp: 1_764_885_600, body: longer) == "v1,SSua3zQ01vUXqMHW+N1Vz0omfjB7zbjqcvMS916vals=")
        #expect(signer.signature(id: example.id, timestamp: example.timestamp, body: example.body) == published)
    }

    @Test func everySecretSignsInTheFileOrderSeparatedBySpaces() throws {
        let signer = WebhookSigner(secrets: [try #require(WebhookSecret(Self.key32)), try #require(WebhookSecret(Self.key24))])
        let longer = Array(String(repeating: #"{"event":"updated","seq":2}"#, count: 10).utf8)
        #expect(signer.signature(id: "evt_abc_2", timestamp: 1_764_885_600, body: longer)
            == "v1,B1ow+vxrSsI9aIxOUD0qSofQtDVl99aRUgXSljxUECg= v1,SSua3zQ01vUXqMHW+N1Vz0omfjB7zbjqcvMS916vals=")
        #expect(signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
            == "v1,643FXwTiWLIMl1FBJ7vTC5wqMtrtF3tD/xNTCkNCyuE= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func secretDescriptionHidesTheKey() throws {
        let secret = try #require(WebhookSecret(Self.key24))
        #expect(!secret.description.contains("MfKQ"))
    }

    @Test func aKeyShorterThan24BytesIsRefusedNamingTheFileAndLineButNotTheKey() throws {
        // whsec_AAE= is a 2-byte key.
        let path = try secretFile("\(Self.key24)\nwhsec_AAE=\n")
        do {
            _ = try WebhookSecret.load(fromFile: path)
            Issue.record("a 2-byte key was accepted")
        } catch {
            #expect(error.description.contains(path))
            #expect(error.description.contains("line 2"))
            #expect(error.description.contains("2-byte key"))
            #expect(!error.description.contains("AAE"))
        }
    }

    @Test(arguments: [0o644, 0o640, 0o604] as [mode_t])
    func aSecretFileReadableByGroupOrOthersIsRefusedNamingTheFile(mode: mode_t) throws {
        let path = try secretFile("\(Self.key24)\n", mode: mode)
        #expect(throws: WebhookError.secretFile(.exposed(path: path, mode: S_IFREG | mode))) {
            try WebhookSecret.load(fromFile: path)
        }
        do { _ = try WebhookSecret.load(fromFile: path) } catch {
            #expect(error.description.hasPrefix("webhook secret file \(path) is open to its group or others"))
        }
    }
}
