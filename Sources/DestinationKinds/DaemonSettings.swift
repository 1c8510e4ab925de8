import Settings

/// livelocd's own keys (the destinations' come from their kinds), in tables: one section each of
/// `livelocd --help`, livelocd.conf.example, livelocd.conf(5) and the README. `shareOption` names
/// `liveloc share`'s option of the same meaning. `DaemonConfiguration.set` applies each. Here,
/// beside the destinations' kinds, so that `liveloc share` knows livelocd's spelling of its options.
package enum DaemonSettings {
    package static let tables: [SettingsTable] = [
        SettingsTable(title: "The source", about: "Where fixes come from: gpsd, an NMEA 0183 log replayed on its own timeline, or a receiver on a serial port read without gpsd (the unit hides devices: /usr/share/doc/livelocd/examples/serial.conf.example, installed as /etc/systemd/system/livelocd.service.d/serial.conf, lets it open one).", settings: [
            SettingDescription("source", "gpsd|replay|serial", default: "gpsd", "where fixes come from"),
            SettingDescription("gpsd.host", "HOST", default: "127.0.0.1", "gpsd's address"),
            SettingDescription("gpsd.port", "PORT", default: "2947", "gpsd's port"),
            SettingDescription("gpsd.device", "PATH", example: "/dev/ttyACM0", "the one device of gpsd's to watch (default: all)",
                               shareOption: "--gpsd-device"),
            SettingDescription("replay.file", "PATH", example: "/usr/share/doc/livelocd/examples/drive-multignss-1hz.nmea",
                               "the NMEA log to replay (required for source = replay)", shareOption: "--replay"),
            SettingDescription("replay.speed", "FACTOR", default: "1", "how many times faster than real time; 0 = as fast as possible",
                               shareOption: "--speed"),
            SettingDescription("replay.loop", "true|false", default: "false", "start the log again at its end"),
            SettingDescription("serial.device", "PATH", example: "/dev/serial/by-id/usb-u-blox_GNSS_receiver-if00",
                               "the receiver's serial device (required for source = serial)", shareOption: "--serial"),
            SettingDescription("serial.baud", "auto|RATE", default: "auto",
                               "auto (try the usual rates), 4800, 9600, 19200, 38400, 57600 or 115200", shareOption: "--baud"),
        ]),
        SettingsTable(title: "What a share sends", about: "Events as JSON lines on standard output (the system journal, under systemd), and which fixes a share sends: one sooner than min_interval after the last update, or nearer than min_distance metres to it, is dropped, unless its course turned by more than min_angle degrees.", settings: [
            SettingDescription("sinks.stdout", "true|false", default: "true", "events as JSON lines on standard output"),
            SettingDescription("throttle.min_interval", "DURATION", default: "off",
                               "drop fixes sooner than this after the last update: 5s, 500ms, 1m", shareOption: "--min-interval"),
            SettingDescription("throttle.min_distance", "METRES", default: "off", "drop fixes nearer than this to the last update",
                               shareOption: "--min-distance"),
            SettingDescription("throttle.min_angle", "DEGREES", default: "off",
                               "send a fix the limits above would drop when the course turned by more than this", shareOption: "--min-angle"),
        ]),
        SettingsTable(title: "Privacy", about: "What every destination is told of a fix. precision: positions snapped to a fixed grid of cells this many metres across. zone: inside this circle only its centre is shared, with the radius as accuracy; one line per zone. The centre is what watchers see: put it where being seen does not matter, not on your front door.", settings: [
            SettingDescription("privacy.precision", "METRES", default: "off",
                               "share positions snapped to a fixed grid of this size, 1-100000 (off: exact positions)", shareOption: "--precision"),
            SettingDescription("privacy.zone", "LAT,LON,RADIUS", example: "48.1372,11.5756,400",
                               "inside this circle (degrees, degrees, metres) share only its centre; repeatable, one zone each (default none)",
                               shareOption: "--zone", isRepeatable: true),
        ]),
        SettingsTable(title: "Tracks", about: "How long each share's accepted fixes (liveloc track) are kept after its last fix.", settings: [
            SettingDescription("track.retention", "DURATION", default: "7d", "keep each share's accepted fixes this long after its last: 7d, 12h, off = none"),
        ]),
        SettingsTable(title: "The daemon", about: "Where the journal (journal.sqlite: the active share, the destinations' queues, the tracks) and the control socket are, what becomes of events queued for a destination no longer configured, who may control the daemon (root, livelocd's own user and the members of control.group: adduser USER livelocd-ctl), and the battery whose level goes with every update.", settings: [
            SettingDescription("state_directory", "PATH", default: "/var/lib/livelocd",
                               "where the journal is kept ($STATE_DIRECTORY when systemd sets it)", shareOption: "--state-directory"),
            SettingDescription("journal.leftovers", "keep|discard|redirect", default: "keep",
                               "events queued for a destination not configured now: keep them for it, discard them, or redirect them to the destination of the same kind",
                               shareOption: "--leftovers"),
            SettingDescription("journal.sync_delay", "DURATION", default: "off",
                               "how long an update may wait in memory so that one journal commit and disk sync carry several (less CPU, fewer wake-ups and flash writes; updates up to that much later; a crash or power cut loses at most the updates held, which nobody saw; a share's start and end are never held): 2s, 5s, at most 1m; off = every update is committed and synced before it leaves"),
            SettingDescription("control.socket", "PATH", default: "/run/livelocd/control.sock",
                               "the control socket livelocd makes when systemd passes none ($RUNTIME_DIRECTORY/control.sock when systemd sets it)"),
            SettingDescription("control.group", "GROUP", default: "livelocd-ctl", "the group allowed to control the daemon"),
            SettingDescription("control.status_public", "true|false", default: "false",
                               "let anyone who can reach the socket ask for the status; socket mode 0666"),
            SettingDescription("battery.path", "auto|off|PATH", default: "auto",
                               "the battery whose level and charging go with every update: auto = the first of type Battery in /sys/class/power_supply, or a power supply directory"),
            SettingDescription("battery.interval", "DURATION", default: "1m", "how often the battery is read"),
            SettingDescription("log.level", "debug|info|notice|warning|error", default: "info",
                               "the least severe log lines written (also livelocd --log-level); under systemd each carries its priority",
                               shareOption: "--log-level"),
        ]),
    ]
}
