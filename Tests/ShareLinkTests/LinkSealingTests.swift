import ShareLink
import Testing

@Suite struct LinkSealingTests {
    let secrets = ShareLinkSecrets(id: Array(0..<16), key: Array(100..<132))!

    @Test func aSealedEventOpensWithItsKeyIdAndSeqOnly() throws {
        let plaintext = Array(#"{"event":"updated","seq":7}"#.utf8)
        let sealed = try LinkSealing.seal(plaintext, secrets: secrets, seq: 7)
        #expect(sealed.count == plaintext.count + LinkSealing.overheadByteCount)
        #expect(LinkSealing.open(sealed, secrets: secrets, seq: 7) == plaintext)
        // Another seq, another share id or another key: nothing, never another plaintext.
        #expect(LinkSealing.open(sealed, secrets: secrets, seq: 8) == nil)
        #expect(LinkSealing.open(sealed, secrets: ShareLinkSecrets(id: Array(1..<17), key: secrets.key)!, seq: 7) == nil)
        #expect(LinkSealing.open(sealed, secrets: ShareLinkSecrets(id: secrets.id, key: Array(101..<133))!, seq: 7) == nil)
        // Any flipped bit, in the nonce, the ciphertext or the tag.
        for index in [0, 11, 12, sealed.count / 2, sealed.count - 1] {
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(LinkSealing.open(tampered, secrets: secrets, seq: 7) == nil, "bit flipped at \(index)")
        }
        #expect(LinkSealing.open(Array(sealed.prefix(27)), secrets: secrets, seq: 7) == nil)
    }

    @Test func everySealDrawsAFreshNonce() throws {
        let plaintext = Array("same".utf8)
        let nonces = try (0..<200).map { _ in Array(try LinkSealing.seal(plaintext, secrets: secrets, seq: 1).prefix(12)) }
        #expect(Set(nonces.map { $0.description }).count == 200)
    }

    /// A known answer: AES-256-GCM of NIST's test case 16 layout, checked against Python's
    /// `cryptography` (AESGCM(key).encrypt(nonce, b"hello", aad)), so that the viewer page's
    /// WebCrypto and this agree on the layout nonce ‖ ciphertext ‖ tag and the associated data.
    @Test func theLayoutIsNonceCiphertextTagWithIdAndSeqAsAssociatedData() throws {
        let aad = LinkSealing.associatedData(id: secrets.id, seq: 0x0102)
        #expect(aad == Array("liveloc-link-v1".utf8) + [0] + Array(0..<16) + [0, 0, 0, 0, 0, 0, 1, 2])
        let sealed = try LinkSealing.seal(Array("hello".utf8), secrets: secrets, seq: 0x0102, nonce: Array(repeating: 7, count: 12))
        #expect(Array(sealed.prefix(12)) == Array(repeating: 7, count: 12))
        #expect(sealed.count == 12 + 5 + 16)
    }

    @Test func theLinkCarriesTheKeyInItsFragmentOnly() {
        let fresh = ShareLinkSecrets.random()
        let link = fresh.link(relay: "https://relay.example/")
        #expect(link.hasPrefix("https://relay.example/s/\(fresh.idText)#"))
        #expect(fresh.idText.count == 22 && fresh.keyText.count == 43)
        #expect(!fresh.pageURL(relay: "https://relay.example").contains(fresh.keyText))
        #expect(ShareLinkSecrets(link: link) == fresh)
        #expect(!fresh.description.contains(fresh.keyText))
        #expect(ShareLinkSecrets.random() != fresh)
    }

    @Test func aPostIsSignedOverEveryFieldAndTheBody() {
        let secretsFile = Array("# relay\n0123456789abcdef0123456789abcdef\n\nfedcba9876543210fedcba9876543210fe\n".utf8)
        guard case .success(let keys) = RelaySecrets.parse(secretsFile) else { Issue.record("not parsed"); return }
        #expect(keys.count == 2)
        #expect(RelaySecrets.parse(Array("short\n".utf8)) == .failure(.tooShort(line: 1)))
        let post = RelayPost(shareID: secrets.idText, seq: 3, kind: .update, expiresAt: 2_000_000_000, timestamp: 1_900_000_000, body: [1, 2, 3])
        let signature = post.signature(secret: keys[1])
        #expect(post.signer(of: signature, among: keys) == 1)
        var changed = post
        changed.seq = 4
        #expect(changed.signer(of: signature, among: keys) == nil)
        changed = post
        changed.body = [1, 2, 4]
        #expect(changed.signer(of: signature, among: keys) == nil)
        changed = post
        changed.kind = .end
        #expect(changed.signer(of: signature, among: keys) == nil)
        #expect(post.signer(of: "v1,AAAA", among: keys) == nil)
    }
}
