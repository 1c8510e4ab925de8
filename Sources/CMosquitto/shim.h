// libmosquitto (Debian libmosquitto-dev): the MQTT 5 / 3.1.1 client library, and the MQTT
// protocol's constants (reason codes, property identifiers) from mqtt_protocol.h.
#include <errno.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

// errno as libmosquitto left it after MOSQ_ERR_ERRNO (Swift cannot read the errno macro directly
// across all C libraries without Glibc's wrapper; this keeps the module self-contained).
static inline int cmosquitto_errno(void) { return errno; }
