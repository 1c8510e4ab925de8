#include "cmosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// Each pointer has the type of the function mosquitto.h declares, so a signature that differs from
// the library's is a compile error here (the library itself is never linked).
#define CMOSQUITTO_FUNCTIONS(X) \
    X(lib_init) X(strerror) X(new) X(destroy) X(int_option) X(threaded_set) X(username_pw_set) \
    X(will_set_v5) X(tls_set) X(tls_opts_set) X(tls_insecure_set) X(connect_v5_callback_set) \
    X(publish_v5_callback_set) X(disconnect_v5_callback_set) X(log_callback_set) X(connect_bind) \
    X(connect_bind_v5) X(loop) X(publish_v5) X(disconnect) X(disconnect_v5) X(property_add_int32) \
    X(property_free_all) X(subscribe_v5) X(message_v5_callback_set) X(property_add_binary) \
    X(property_read_binary) X(property_read_string)

static struct {
#define CMOSQUITTO_SLOT(name) __typeof__(mosquitto_##name) *name;
    CMOSQUITTO_FUNCTIONS(CMOSQUITTO_SLOT)
} mosq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error;
static char load_error_text[512];

static void load(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        // The package livelocd recommends; one line naming it (dlerror's own text after it).
        snprintf(load_error_text, sizeof load_error_text,
                 "MQTT needs libmosquitto: install the package libmosquitto1 (%s)", dlerror());
        load_error = load_error_text;
        return;
    }
#define CMOSQUITTO_RESOLVE(name) \
    if (!(*(void **)&mosq.name = dlsym(library, "mosquitto_" #name))) { \
        snprintf(load_error_text, sizeof load_error_text, "libmosquitto.so.1 has no mosquitto_" #name); \
        load_error = load_error_text; \
        return; \
    }
    CMOSQUITTO_FUNCTIONS(CMOSQUITTO_RESOLVE)
    int code = mosq.lib_init();
    if (code != MOSQ_ERR_SUCCESS) {
        snprintf(load_error_text, sizeof load_error_text, "mosquitto_lib_init: %s", mosq.strerror(code));
        load_error = load_error_text;
    }
}

const char *cmosquitto_load(void) {
    pthread_once(&load_once, load);
    return load_error;
}

struct mosquitto *cmosquitto_new(const char *id, bool clean_session, void *obj) {
    return mosq.new(id, clean_session, obj);
}
void cmosquitto_destroy(struct mosquitto *m) { mosq.destroy(m); }
const char *cmosquitto_strerror(int mosq_errno) { return mosq.strerror(mosq_errno); }
int cmosquitto_int_option(struct mosquitto *m, enum mosq_opt_t option, int value) {
    return mosq.int_option(m, option, value);
}
int cmosquitto_threaded_set(struct mosquitto *m, bool threaded) { return mosq.threaded_set(m, threaded); }
int cmosquitto_username_pw_set(struct mosquitto *m, const char *username, const char *password) {
    return mosq.username_pw_set(m, username, password);
}
int cmosquitto_will_set_v5(struct mosquitto *m, const char *topic, int payloadlen, const void *payload,
                           int qos, bool retain, mosquitto_property *properties) {
    return mosq.will_set_v5(m, topic, payloadlen, payload, qos, retain, properties);
}
int cmosquitto_tls_set(struct mosquitto *m, const char *cafile, const char *capath, const char *certfile,
                       const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)) {
    return mosq.tls_set(m, cafile, capath, certfile, keyfile, pw_callback);
}
int cmosquitto_tls_opts_set(struct mosquitto *m, int cert_reqs, const char *tls_version, const char *ciphers) {
    return mosq.tls_opts_set(m, cert_reqs, tls_version, ciphers);
}
int cmosquitto_tls_insecure_set(struct mosquitto *m, bool value) { return mosq.tls_insecure_set(m, value); }
void cmosquitto_connect_v5_callback_set(struct mosquitto *m,
    void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *)) {
    mosq.connect_v5_callback_set(m, on_connect);
}
void cmosquitto_publish_v5_callback_set(struct mosquitto *m,
    void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *)) {
    mosq.publish_v5_callback_set(m, on_publish);
}
void cmosquitto_disconnect_v5_callback_set(struct mosquitto *m,
    void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *)) {
    mosq.disconnect_v5_callback_set(m, on_disconnect);
}
void cmosquitto_log_callback_set(struct mosquitto *m, void (*on_log)(struct mosquitto *, void *, int, const char *)) {
    mosq.log_callback_set(m, on_log);
}
int cmosquitto_connect_bind(struct mosquitto *m, const char *host, int port, int keepalive, const char *bind_address) {
    return mosq.connect_bind(m, host, port, keepalive, bind_address);
}
int cmosquitto_connect_bind_v5(struct mosquitto *m, const char *host, int port, int keepalive,
                               const char *bind_address, const mosquitto_property *properties) {
    return mosq.connect_bind_v5(m, host, port, keepalive, bind_address, properties);
}
int cmosquitto_loop(struct mosquitto *m, int timeout, int max_packets) { return mosq.loop(m, timeout, max_packets); }
int cmosquitto_publish_v5(struct mosquitto *m, int *mid, const char *topic, int payloadlen, const void *payload,
                          int qos, bool retain, const mosquitto_property *properties) {
    return mosq.publish_v5(m, mid, topic, payloadlen, payload, qos, retain, properties);
}
int cmosquitto_disconnect(struct mosquitto *m) { return mosq.disconnect(m); }
int cmosquitto_disconnect_v5(struct mosquitto *m, int reason_code, const mosquitto_property *properties) {
    return mosq.disconnect_v5(m, reason_code, properties);
}
int cmosquitto_property_add_int32(mosquitto_property **proplist, int identifier, uint32_t value) {
    return mosq.property_add_int32(proplist, identifier, value);
}
void cmosquitto_property_free_all(mosquitto_property **properties) { mosq.property_free_all(properties); }
int cmosquitto_subscribe_v5(struct mosquitto *m, int *mid, const char *sub, int qos, int options,
                            const mosquitto_property *properties) {
    return mosq.subscribe_v5(m, mid, sub, qos, options, properties);
}
void cmosquitto_message_v5_callback_set(struct mosquitto *m,
    void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *)) {
    mosq.message_v5_callback_set(m, on_message);
}
int cmosquitto_property_add_binary(mosquitto_property **proplist, int identifier, const void *value, uint16_t len) {
    return mosq.property_add_binary(proplist, identifier, value, len);
}
const mosquitto_property *cmosquitto_property_read_binary(const mosquitto_property *proplist, int identifier,
                                                          void **value, uint16_t *len, bool skip_first) {
    return mosq.property_read_binary(proplist, identifier, value, len, skip_first);
}
const mosquitto_property *cmosquitto_property_read_string(const mosquitto_property *proplist, int identifier,
                                                          char **value, bool skip_first) {
    return mosq.property_read_string(proplist, identifier, value, skip_first);
}
