import CCrypto

/// Sealing one share event for the relay: AES-256-GCM (OpenSSL's libcrypto) with a fresh 96-bit
/// random nonce per event and the share's link id and the event's seq as associated data, so that
/// the relay, which holds only what this returns, can neither read an event nor move it to another
/// share or another place in the share without the viewer's decryption failing.
///
/// The sealed form is `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`; the associated data is
/// `"liveloc-link-v1" 0x00 ‖ id (16 bytes) ‖ seq (8 bytes, big-endian)` (docs/formats.md, "Share
/// links"). The viewer page (WebCrypto) opens it with the same three parts.
package enum LinkSealing {
    package static let nonceByteCount = 12
    package static let tagByteCount = 16
    /// Bytes a sealed event has beyond its plaintext.
    package static let overheadByteCount = nonceByteCount + tagByteCount

    /// What binds a sealed event to its share and its place in it.
    package static func associatedData(id: [UInt8], seq: UInt64) -> [UInt8] {
        Array("liveloc-link-v1".utf8) + [0] + id + (0..<8).reversed().map { UInt8(truncatingIfNeeded: seq >> (8 * UInt64($0))) }
    }

    /// `plaintext` sealed under `secrets.key`, bound to `secrets.id` and `seq`, with a nonce drawn
    /// from the kernel's CSPRNG.
    /// - Throws: `LinkSealingError.crypto` when libcrypto fails (it does not, for valid sizes).
    package static func seal(_ plaintext: [UInt8], secrets: ShareLinkSecrets, seq: UInt64) throws(LinkSealingError) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<nonceByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try seal(plaintext, secrets: secrets, seq: seq, nonce: nonce)
    }

    /// `seal` with a given nonce: for the tests' known answers only (a nonce must never repeat under a key).
    package static func seal(_ plaintext: [UInt8], secrets: ShareLinkSecrets, seq: UInt64, nonce: [UInt8]) throws(LinkSealingError) -> [UInt8] {
        precondition(nonce.count == nonceByteCount)
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let aad = associatedData(id: secrets.id, seq: seq)
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        var length: Int32 = 0
        var total = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              ccrypto_gcm_set_iv_length(context, Int32(nonceByteCount)) == 1,
              EVP_EncryptInit_ex(context, nil, nil, secrets.key, nonce) == 1 else { throw .crypto("EVP_EncryptInit_ex") }
        guard EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else { throw .crypto("EVP_EncryptUpdate (aad)") }
        let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, out.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1 else { return false }
                total = Int(length)
            }
            guard EVP_EncryptFinal_ex(context, out.baseAddress! + total, &length) == 1 else { return false }
            total += Int(length)
            return true
        }
        guard ok else { throw .crypto("EVP_EncryptUpdate") }
        guard ccrypto_gcm_get_tag(context, Int32(tagByteCount), &tag) == 1 else { throw .crypto("EVP_CTRL_GCM_GET_TAG") }
        return nonce + output.prefix(total) + tag
    }

    /// The plaintext of `sealed`, or nil when it was not sealed under `secrets.key` for `secrets.id`
    /// and `seq`, or was changed in any bit.
    package static func open(_ sealed: [UInt8], secrets: ShareLinkSecrets, seq: UInt64) -> [UInt8]? {
        guard sealed.count >= overheadByteCount, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let nonce = Array(sealed.prefix(nonceByteCount))
        var tag = Array(sealed.suffix(tagByteCount))
        let ciphertext = Array(sealed[nonceByteCount..<(sealed.count - tagByteCount)])
        let aad = associatedData(id: secrets.id, seq: seq)
        var output = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var length: Int32 = 0
        var total = 0
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              ccrypto_gcm_set_iv_length(context, Int32(nonceByteCount)) == 1,
              EVP_DecryptInit_ex(context, nil, nil, secrets.key, nonce) == 1,
              EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else { return nil }
        let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
            if !ciphertext.isEmpty {
                guard EVP_DecryptUpdate(context, out.baseAddress, &length, ciphertext, Int32(ciphertext.count)) == 1 else { return false }
                total = Int(length)
            }
            guard ccrypto_gcm_set_tag(context, Int32(tagByteCount), &tag) == 1 else { return false }
            guard EVP_DecryptFinal_ex(context, out.baseAddress! + total, &length) == 1 else { return false }
            total += Int(length)
            return true
        }
        return ok ? Array(output.prefix(total)) : nil
    }
}

/// Why an event could not be sealed.
package enum LinkSealingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A libcrypto call failed: its name.
    case crypto(String)

    package var description: String {
        switch self {
        case .crypto(let call): "share link sealing: libcrypto \(call) failed"
        }
    }
}
