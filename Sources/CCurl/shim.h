#include <curl/curl.h>

// curl_easy_setopt is variadic, which Swift cannot call; one typed wrapper per argument kind.
static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

// Response bodies are not needed: the status code and Retry-After are read with curl_easy_getinfo.
static inline size_t ccurl_discard_body(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}
static inline CURLcode ccurl_setopt_discard_response_body(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, ccurl_discard_body);
}

// Aborting a transfer from another thread: the progress callback (called at least once a second
// while a transfer runs) returns non-zero once *flag is set, and curl_easy_perform returns
// CURLE_ABORTED_BY_CALLBACK.
static inline int ccurl_abort_if_flagged(void *flag, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    return __atomic_load_n((int *)flag, __ATOMIC_ACQUIRE) ? 1 : 0;
}
static inline CURLcode ccurl_setopt_abort_flag(CURL *handle, int *flag) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
    if (code != CURLE_OK) return code;
    code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, ccurl_abort_if_flagged);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_XFERINFODATA, (void *)flag);
}
static inline void ccurl_flag_store(int *flag, int value) {
    __atomic_store_n(flag, value, __ATOMIC_RELEASE);
}
