#include "ccrypto.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <openssl/evp.h>

// The functions used, resolved from libcrypto.so.3 (the headers give their types and constants).
static struct {
    EVP_CIPHER_CTX *(*context_new)(void);
    void (*context_free)(EVP_CIPHER_CTX *context);
    const EVP_CIPHER *(*aes_256_gcm)(void);
    int (*context_ctrl)(EVP_CIPHER_CTX *context, int type, int argument, void *pointer);
    int (*encrypt_init)(EVP_CIPHER_CTX *context, const EVP_CIPHER *cipher, ENGINE *engine, const unsigned char *key, const unsigned char *iv);
    int (*encrypt_update)(EVP_CIPHER_CTX *context, unsigned char *out, int *out_length, const unsigned char *in, int in_length);
    int (*encrypt_final)(EVP_CIPHER_CTX *context, unsigned char *out, int *out_length);
    int (*decrypt_init)(EVP_CIPHER_CTX *context, const EVP_CIPHER *cipher, ENGINE *engine, const unsigned char *key, const unsigned char *iv);
    int (*decrypt_update)(EVP_CIPHER_CTX *context, unsigned char *out, int *out_length, const unsigned char *in, int in_length);
    int (*decrypt_final)(EVP_CIPHER_CTX *context, unsigned char *out, int *out_length);
} crypto;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error;
static char load_error_text[512];

static int resolve(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot) return 1;
    snprintf(load_error_text, sizeof load_error_text, "libcrypto.so.3 has no %s", name);
    load_error = load_error_text;
    return 0;
}

static void load(void) {
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error_text, sizeof load_error_text,
                 "share links need libcrypto: install the package libssl3 (%s)", dlerror());
        load_error = load_error_text;
        return;
    }
    if (!resolve(library, "EVP_CIPHER_CTX_new", (void **)&crypto.context_new) ||
        !resolve(library, "EVP_CIPHER_CTX_free", (void **)&crypto.context_free) ||
        !resolve(library, "EVP_aes_256_gcm", (void **)&crypto.aes_256_gcm) ||
        !resolve(library, "EVP_CIPHER_CTX_ctrl", (void **)&crypto.context_ctrl) ||
        !resolve(library, "EVP_EncryptInit_ex", (void **)&crypto.encrypt_init) ||
        !resolve(library, "EVP_EncryptUpdate", (void **)&crypto.encrypt_update) ||
        !resolve(library, "EVP_EncryptFinal_ex", (void **)&crypto.encrypt_final) ||
        !resolve(library, "EVP_DecryptInit_ex", (void **)&crypto.decrypt_init) ||
        !resolve(library, "EVP_DecryptUpdate", (void **)&crypto.decrypt_update) ||
        !resolve(library, "EVP_DecryptFinal_ex", (void **)&crypto.decrypt_final)) {
        return;
    }
}

const char *ccrypto_load(void) {
    pthread_once(&load_once, load);
    return load_error;
}

int ccrypto_aes256gcm_seal(const uint8_t *key, const uint8_t *nonce, size_t nonce_length,
                           const uint8_t *aad, size_t aad_length, const uint8_t *plaintext, size_t length,
                           uint8_t *ciphertext, uint8_t *tag) {
    if (ccrypto_load() || length > INT_MAX || aad_length > INT_MAX || nonce_length > INT_MAX) return 0;
    EVP_CIPHER_CTX *context = crypto.context_new();
    if (!context) return 0;
    int ok = 0, written = 0, total = 0;
    if (crypto.encrypt_init(context, crypto.aes_256_gcm(), NULL, NULL, NULL) == 1 &&
        crypto.context_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, (int)nonce_length, NULL) == 1 &&
        crypto.encrypt_init(context, NULL, NULL, key, nonce) == 1 &&
        (aad_length == 0 || crypto.encrypt_update(context, NULL, &written, aad, (int)aad_length) == 1) &&
        (length == 0 || crypto.encrypt_update(context, ciphertext, &written, plaintext, (int)length) == 1)) {
        total = length == 0 ? 0 : written;
        if (crypto.encrypt_final(context, ciphertext + total, &written) == 1 &&
            crypto.context_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1) {
            ok = (size_t)(total + written) == length;
        }
    }
    crypto.context_free(context);
    return ok;
}

int ccrypto_aes256gcm_open(const uint8_t *key, const uint8_t *nonce, size_t nonce_length,
                           const uint8_t *aad, size_t aad_length, const uint8_t *ciphertext, size_t length,
                           const uint8_t *tag, uint8_t *plaintext) {
    if (ccrypto_load() || length > INT_MAX || aad_length > INT_MAX || nonce_length > INT_MAX) return 0;
    EVP_CIPHER_CTX *context = crypto.context_new();
    if (!context) return 0;
    int ok = 0, written = 0, total = 0;
    if (crypto.decrypt_init(context, crypto.aes_256_gcm(), NULL, NULL, NULL) == 1 &&
        crypto.context_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, (int)nonce_length, NULL) == 1 &&
        crypto.decrypt_init(context, NULL, NULL, key, nonce) == 1 &&
        (aad_length == 0 || crypto.decrypt_update(context, NULL, &written, aad, (int)aad_length) == 1) &&
        (length == 0 || crypto.decrypt_update(context, plaintext, &written, ciphertext, (int)length) == 1)) {
        total = length == 0 ? 0 : written;
        if (crypto.context_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, (void *)tag) == 1 &&
            crypto.decrypt_final(context, plaintext + total, &written) == 1) {
            ok = (size_t)(total + written) == length;
        }
    }
    crypto.context_free(context);
    return ok;
}
