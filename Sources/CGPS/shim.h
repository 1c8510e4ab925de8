#include <gps.h>

// gps_send is variadic, which Swift cannot call; this wrapper takes the finished command.
static inline int cgps_send_command(struct gps_data_t *data, const char *command) {
    return gps_send(data, "%s", command);
}
