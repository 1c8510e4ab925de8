#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H
// libmosquitto, loaded on first use (dlopen "libmosquitto.so.1") instead of linked: a livelocd
// without an MQTT destination then maps neither libmosquitto nor the OpenSSL it links (libssl,
// libcrypto: about 2 MB of resident memory with OpenSSL's start-up heap). Only the types and
// constants come from mosquitto.h and mqtt_protocol.h (Debian libmosquitto-dev).
#include <errno.h>
#include <stdbool.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

/// Loads libmosquitto and runs mosquitto_lib_init, once per process (thread-safe). NULL when it is
/// ready, else why not (dlerror's text, or mosquitto_lib_init's error), the same on every call.
const char *cmosquitto_load(void);

// The libmosquitto functions livelocd uses, under the same signatures; cmosquitto_load() must have
// succeeded first.
struct mosquitto *cmosquitto_new(const char *id, bool clean_session, void *obj);
void cmosquitto_destroy(struct mosquitto *mosq);
const char *cmosquitto_strerror(int mosq_errno);
int cmosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value);
int cmosquitto_threaded_set(struct mosquitto *mosq, bool threaded);
int cmosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
int cmosquitto_will_set_v5(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload,
                           int qos, bool retain, mosquitto_property *properties);
int cmosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                       const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
int cmosquitto_tls_opts_set(struct mosquitto *mosq, int cert_reqs, const char *tls_version, const char *ciphers);
int cmosquitto_tls_insecure_set(struct mosquitto *mosq, bool value);
void cmosquitto_connect_v5_callback_set(struct mosquitto *mosq,
    void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *));
void cmosquitto_publish_v5_callback_set(struct mosquitto *mosq,
    void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *));
void cmosquitto_disconnect_v5_callback_set(struct mosquitto *mosq,
    void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *));
void cmosquitto_log_callback_set(struct mosquitto *mosq, void (*on_log)(struct mosquitto *, void *, int, const char *));
int cmosquitto_connect_bind(struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address);
int cmosquitto_connect_bind_v5(struct mosquitto *mosq, const char *host, int port, int keepalive,
                               const char *bind_address, const mosquitto_property *properties);
int cmosquitto_loop(struct mosquitto *mosq, int timeout, int max_packets);
int cmosquitto_publish_v5(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                          int qos, bool retain, const mosquitto_property *properties);
int cmosquitto_disconnect(struct mosquitto *mosq);
int cmosquitto_disconnect_v5(struct mosquitto *mosq, int reason_code, const mosquitto_property *properties);
int cmosquitto_property_add_int32(mosquitto_property **proplist, int identifier, uint32_t value);
void cmosquitto_property_free_all(mosquitto_property **properties);
int cmosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options,
                            const mosquitto_property *properties);
void cmosquitto_message_v5_callback_set(struct mosquitto *mosq,
    void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *));
int cmosquitto_property_add_binary(mosquitto_property **proplist, int identifier, const void *value, uint16_t len);
// The value read is malloc'd: the caller frees it (free()).
const mosquitto_property *cmosquitto_property_read_binary(const mosquitto_property *proplist, int identifier,
                                                          void **value, uint16_t *len, bool skip_first);
const mosquitto_property *cmosquitto_property_read_string(const mosquitto_property *proplist, int identifier,
                                                          char **value, bool skip_first);

// errno as libmosquitto left it after MOSQ_ERR_ERRNO (Swift cannot read the errno macro directly
// across all C libraries without Glibc's wrapper; this keeps the module self-contained).
static inline int cmosquitto_errno(void) { return errno; }

#endif
