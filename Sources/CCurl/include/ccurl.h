#ifndef CCURL_H
#define CCURL_H
// libcurl, loaded on first use (dlopen "libcurl.so.4") instead of linked: a livelocd without a
// webhook sink then maps none of libcurl's ~30 libraries (Debian's libcurl brings GnuTLS, Kerberos,
// LDAP, SSH), about 4 MB of its resident memory. Only the constants and types come from curl.h.
#include <curl/curl.h>

/// Loads libcurl and runs curl_global_init, once per process (thread-safe). NULL when it is ready,
/// else why not (dlerror's text), the same text on every later call.
const char *ccurl_load(void);

// The libcurl functions livelocd uses; ccurl_load() must have succeeded first.
CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
CURLcode ccurl_easy_perform(CURL *handle);
const char *ccurl_easy_strerror(CURLcode code);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string);
void ccurl_slist_free_all(struct curl_slist *list);

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper
// per argument kind.
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);

/// Response bodies are not needed: the status code and Retry-After are read with curl_easy_getinfo.
CURLcode ccurl_setopt_discard_response_body(CURL *handle);

/// A bounded response body: the first `capacity` bytes are kept in `data`, the rest is read and
/// dropped (so that the connection stays reusable) and `truncated` is set. Reset `length` and
/// `truncated` before each transfer.
struct ccurl_body {
    unsigned char *data;
    size_t capacity;
    size_t length;
    int truncated;
};

/// Collects response bodies into `body` (which must outlive the handle's transfers).
CURLcode ccurl_setopt_collect_response_body(CURL *handle, struct ccurl_body *body);

/// Aborting a transfer from another thread: the progress callback (called at least once a second
/// while a transfer runs) returns non-zero once *flag is set, and curl_easy_perform returns
/// CURLE_ABORTED_BY_CALLBACK.
CURLcode ccurl_setopt_abort_flag(CURL *handle, int *flag);
void ccurl_flag_store(int *flag, int value);
/// The flag's value (an atomic load): the built-in http:// client checks the same flag. Neither
/// needs libcurl loaded.
int ccurl_flag_load(const int *flag);

#endif
