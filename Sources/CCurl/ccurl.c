#include "ccurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error;
static char load_error_text[512];

static int resolve(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot) return 1;
    snprintf(load_error_text, sizeof load_error_text, "libcurl.so.4 has no %s", name);
    load_error = load_error_text;
    return 0;
}

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        // The package livelocd recommends; one line naming it (dlerror's own text after it).
        snprintf(load_error_text, sizeof load_error_text,
                 "https:// needs libcurl: install the package libcurl4 (%s)", dlerror());
        load_error = load_error_text;
        return;
    }
    if (!resolve(library, "curl_global_init", (void **)&curl.global_init) ||
        !resolve(library, "curl_easy_init", (void **)&curl.easy_init) ||
        !resolve(library, "curl_easy_cleanup", (void **)&curl.easy_cleanup) ||
        !resolve(library, "curl_easy_perform", (void **)&curl.easy_perform) ||
        !resolve(library, "curl_easy_strerror", (void **)&curl.easy_strerror) ||
        !resolve(library, "curl_easy_setopt", (void **)&curl.easy_setopt) ||
        !resolve(library, "curl_easy_getinfo", (void **)&curl.easy_getinfo) ||
        !resolve(library, "curl_slist_append", (void **)&curl.slist_append) ||
        !resolve(library, "curl_slist_free_all", (void **)&curl.slist_free_all)) {
        return;
    }
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_error_text, sizeof load_error_text, "curl_global_init: %s", curl.easy_strerror(code));
        load_error = load_error_text;
    }
}

const char *ccurl_load(void) {
    pthread_once(&load_once, load);
    return load_error;
}

CURL *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
CURLcode ccurl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *ccurl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string) { return curl.slist_append(list, string); }
void ccurl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl.easy_getinfo(handle, info, value); }
CURLcode ccurl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) { return curl.easy_getinfo(handle, info, value); }

static size_t discard_body(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

CURLcode ccurl_setopt_discard_response_body(CURL *handle) {
    return curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, discard_body);
}

static size_t collect_body(char *data, size_t size, size_t count, void *context) {
    struct ccurl_body *body = context;
    size_t total = size * count;
    size_t room = body->capacity - body->length;
    size_t kept = total < room ? total : room;
    if (kept > 0) {
        memcpy(body->data + body->length, data, kept);
        body->length += kept;
    }
    if (kept < total) body->truncated = 1;
    return total;
}

CURLcode ccurl_setopt_collect_response_body(CURL *handle, struct ccurl_body *body) {
    CURLcode code = curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect_body);
    if (code != CURLE_OK) return code;
    return curl.easy_setopt(handle, CURLOPT_WRITEDATA, (void *)body);
}

static int abort_if_flagged(void *flag, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    return __atomic_load_n((int *)flag, __ATOMIC_ACQUIRE) ? 1 : 0;
}

CURLcode ccurl_setopt_abort_flag(CURL *handle, int *flag) {
    CURLcode code = curl.easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
    if (code != CURLE_OK) return code;
    code = curl.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, abort_if_flagged);
    if (code != CURLE_OK) return code;
    return curl.easy_setopt(handle, CURLOPT_XFERINFODATA, (void *)flag);
}

void ccurl_flag_store(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_RELEASE); }
int ccurl_flag_load(const int *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }
