import Foundation
import SystemIO
import Testing
import TestSupport

/// `readSecretFile`: only a file its owner alone may read is a secret.
@Suite struct SecretFileTests {
    private func file(mode: mode_t, content: String = "s3cret\n") throws -> String {
        let path = try Paths.temporaryDirectory("secret").appendingPathComponent("secret").path
        try content.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o620, 0o660, 0o601] as [mode_t])
    func aSecretFileOpenToItsGroupOrOthersIsRefusedNamingItAndItsMode(mode: mode_t) throws {
        let path = try file(mode: mode)
        #expect(throws: SecretFileError.exposed(path: path, mode: S_IFREG | mode)) { try readSecretFile(path) }
        do { _ = try readSecretFile(path) } catch {
            #expect(error.description.contains(path))
            #expect(error.description.contains("0" + String(mode, radix: 8)))
            #expect(!error.description.contains("s3cret"))
        }
    }

    @Test(arguments: [0o600, 0o400] as [mode_t])
    func aSecretFileOnlyItsOwnerMayReadIsRead(mode: mode_t) throws {
        let path = try file(mode: mode)
        #expect(try readSecretFile(path) == Array("s3cret\n".utf8))
    }

    @Test func aMissingSecretFileIsUnreadableNamingIt() throws {
        let path = try Paths.temporaryDirectory("secret").appendingPathComponent("absent").path
        #expect(throws: SecretFileError.unreadable(SystemError("open", target: path, errno: .noSuchFileOrDirectory))) { try readSecretFile(path) }
    }

    @Test func aDirectoryIsNotASecretFile() throws {
        let directory = try Paths.temporaryDirectory("secret")
        chmod(directory.path, 0o700)
        #expect(throws: SecretFileError.notARegularFile(path: directory.path)) { try readSecretFile(directory.path) }
    }

    @Test func aSecretFileLargerThanItsLimitIsRefused() throws {
        let path = try file(mode: 0o600, content: String(repeating: "x", count: 100))
        #expect(throws: SecretFileError.tooLarge(path: path, limit: 64)) { try readSecretFile(path, limit: 64) }
    }
}
