// OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3), loaded on first use (dlopen), like libcurl
// in CCurl: a livelocd without a share link destination never maps it (linked, it cost every
// livelocd and liveloc 1.4 MB of RSS). AES-256-GCM only, for the share links (Sources/ShareLink).
#ifndef CCRYPTO_H
#define CCRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// Loads libcrypto once; NULL when it is usable, else why not (one line).
const char *ccrypto_load(void);

/// AES-256-GCM: `ciphertext` gets `length` bytes, `tag` 16. 1 on success, 0 on failure.
int ccrypto_aes256gcm_seal(const uint8_t *key, const uint8_t *nonce, size_t nonce_length,
                           const uint8_t *aad, size_t aad_length, const uint8_t *plaintext, size_t length,
                           uint8_t *ciphertext, uint8_t *tag);

/// The inverse: `plaintext` gets `length` bytes when the tag matches. 1 when it does, 0 otherwise.
int ccrypto_aes256gcm_open(const uint8_t *key, const uint8_t *nonce, size_t nonce_length,
                           const uint8_t *aad, size_t aad_length, const uint8_t *ciphertext, size_t length,
                           const uint8_t *tag, uint8_t *plaintext);

#endif
