import Foundation
import Signing
import Testing
import TestSupport

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

func bytes(hex text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
}

/// SHA-256 against the FIPS 180-4 examples (NIST's "SHA256.pdf" and the CAVP long message), and
/// against Python's hashlib for every length around the padding's edges.
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        // The 448-bit (56-byte) message: its padding takes a second block.
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        // The 896-bit message (two blocks of data).
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func theFIPSExampleMessagesHashToTheirPublishedDigests(message: String, digest: String) {
        #expect(hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func aMillionLetterAsHashToThePublishedDigestWhetherFedAtOnceOrInUnevenPieces() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(SHA256.hash(message)) == expected)
        // Pieces of 1 to 131 bytes, so that every offset within a block is crossed.
        var hasher = SHA256()
        var offset = 0, size = 1
        while offset < message.count {
            let end = min(offset + size, message.count)
            hasher.update(message[offset..<end])
            offset = end
            size = size % 131 + 1
        }
        #expect(hex(hasher.finalize()) == expected)
    }

    @Test func everyLengthFrom0To200BytesMatchesPythonsHashlib() async throws {
        let messages = (0...200).map { length in (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ length) } }
        let script = """
            import hashlib, sys
            for line in sys.stdin.read().split():
                print(hashlib.sha256(bytes.fromhex(line[1:])).hexdigest())
            """
        let input = messages.map { "x" + hex($0) }.joined(separator: "\n")
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script], stdin: Data(input.utf8))
        try #require(result.status == 0, "python3: \(result.stderr)")
        let expected = result.stdout.split(separator: "\n").map(String.init)
        try #require(expected.count == messages.count)
        for (message, digest) in zip(messages, expected) {
            #expect(hex(SHA256.hash(message)) == digest, "length \(message.count)")
        }
    }
}
