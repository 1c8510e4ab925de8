import Delivery
import Webhook
import Foundation
import Testing
import TestSupport

@Suite("Webhook secrets")
struct WebhookSecretTests {
    @Test func secretFileSkipsCommentsAndBlankLinesAndKeepsOrder() throws {
        let directory = try Paths.temporaryDirectory("secret")
        let file = directory.appendingPathComponent("secrets")
        try "# rotation\n\nwhsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n  whsec_AAECAwQ=  \n".write(to: file, atomically: true, encoding: .utf8)
        let secrets = try WebhookSecret.load(fromFile: file.path)
        #expect(secrets.count == 2)
        #expect(secrets[1] == WebhookSecret("whsec_AAECAwQ="))
    }

    @Test func malformedSecretIsReportedByLineWithoutItsContent() throws {
        let directory = try Paths.temporaryDirectory("secret")
        let file = directory.appendingPathComponent("secrets")
        try "whsec_AAECAwQ=\nsupersecretvalue\n".write(to: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try WebhookSecret.load(fromFile: file.path)
        } throws: { error in
            "\(error)".contains("line 2") && !"\(error)".contains("supersecretvalue")
        }
    }

    @Test func emptySecretFileIsAnError() throws {
        let directory = try Paths.temporaryDirectory("secret")
        let file = directory.appendingPathComponent("secrets")
        try "# nothing\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: WebhookError.noSecret(path: file.path)) { try WebhookSecret.load(fromFile: file.path) }
    }

    @Test func secretDescriptionHidesTheKey() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        #expect(!secret.description.contains("MfKQ"))
    }
}
