// OpenSSL's libcrypto (Debian's libssl-dev): AES-256-GCM through EVP, for the share links.
#include <openssl/evp.h>
#include <openssl/crypto.h>

// EVP_CIPHER_CTX_ctrl's GCM controls are macros Swift cannot import.
static inline int ccrypto_gcm_set_iv_length(EVP_CIPHER_CTX *context, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, length, (void *)0);
}
static inline int ccrypto_gcm_get_tag(EVP_CIPHER_CTX *context, int length, unsigned char *tag) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, length, tag);
}
static inline int ccrypto_gcm_set_tag(EVP_CIPHER_CTX *context, int length, unsigned char *tag) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, length, tag);
}
