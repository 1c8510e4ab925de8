import Control
import Delivery
import Journal
import MQTT
import Telegram
import Traccar
import Webhook
#if canImport(Glibc)
import Glibc
#endif
import LiveLocation
import Serial
import SystemIO

/// Everything `livelocd` is told by its configuration file and its command line.
///
/// The file is UTF-8 text with one `key = value` per line; `#` starts a comment (at the start of a
/// line or after white space); blank lines are ignored. A key may appear on one line only, except
/// the `repeatableKeys`, whose every line adds a value. Every key is also a command-line flag
/// `--KEY VALUE` (or `--KEY=VALUE`), which overrides the file.
public struct DaemonConfiguration: Sendable, Equatable {
    /// Where fixes come from.
    public enum Source: String, Sendable, Equatable {
        case gpsd
        case replay
        case serial
    }

    public var source: Source = .gpsd
    public var gpsdHost = "127.0.0.1"
    public var gpsdPort: UInt16 = 2947
    /// The one device gpsd should watch; nil for all.
    public var gpsdDevice: String?
    public var replayFile: String?
    public var replaySpeed = 1.0
    public var replayLoop = false
    /// The serial receiver's device (`source = serial`), e.g. `/dev/serial/by-id/usb-…`.
    public var serialDevice: String?
    package var serialBaud = SerialBaud.automatic
    /// Whether events go to standard output as JSON lines.
    public var stdoutSink = true
    public var throttle = Throttle.off
    /// What the shares reveal of each fix (`privacy.*`, see PrivacySettings).
    public var privacy = PrivacyFilter.off
    /// How long a share's track is kept after its last fix (`track.retention`); nil keeps none.
    public var trackRetention: Duration? = .seconds(7 * 86_400)
    public var stateDirectory: String
    /// What happens at start to events queued for destinations not configured now (`journal.leftovers`).
    package var leftovers = LeftoverPolicy.keep
    public var controlSocket: String
    /// The group whose members may control the daemon (besides root and the daemon's own user).
    public var controlGroup = "livelocd-ctl"
    /// Whether anyone who can reach the socket may ask for the status. The socket the daemon makes
    /// itself is then mode 0666 instead of 0660.
    public var statusPublic = false
    /// `webhook.*` settings, by key, for the webhook sink (validated by that sink).
    public var webhook: [String: String] = [:]
    /// `telegram.*` and `traccar.*` settings, by key (see `TelegramSettings`, `TraccarSettings`).
    public var telegram: [String: String] = [:]
    public var traccar: [String: String] = [:]
    /// `mqtt.*` settings, by key, for the MQTT destination (see `MQTTSettings`).
    public var mqtt: [String: String] = [:]
    /// The power supply whose battery goes into every update: `auto` (the first of type Battery in
    /// /sys/class/power_supply), `off`, or a power supply's directory.
    public var batteryPath = "auto"
    /// How often the battery is read.
    public var batteryInterval: Duration = PowerSupplyBattery.defaultInterval
    /// The least severe log lines written (`log.level`, `--log-level`).
    package var logLevel = LogLevel.info

    /// The defaults; `environment` supplies `STATE_DIRECTORY` and `RUNTIME_DIRECTORY` (set by systemd).
    public init(environment: [String: String] = DaemonConfiguration.processEnvironment()) {
        let state = environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
        stateDirectory = state ?? "/var/lib/livelocd"
        controlSocket = ControlProtocol.defaultSocketPath(runtimeDirectory: environment["RUNTIME_DIRECTORY"])
    }

    /// The configuration file read when `--config` is not given; its absence means the defaults.
    public static let defaultFile = "/etc/livelocd/livelocd.conf"

    /// The keys, their value syntax and their defaults, in the order `--help` lists them.
    public static let keys: [(key: String, value: String, meaning: String)] = [
        ("source", "gpsd|replay|serial", "where fixes come from (default gpsd)"),
        ("gpsd.host", "HOST", "gpsd's address (default 127.0.0.1)"),
        ("gpsd.port", "PORT", "gpsd's port (default 2947)"),
        ("gpsd.device", "PATH", "the one device to watch (default: all)"),
        ("replay.file", "PATH", "the NMEA log to replay (required for source = replay)"),
        ("replay.speed", "FACTOR", "how many times faster than real time; 0 = as fast as possible (default 1)"),
        ("replay.loop", "true|false", "start the log again at its end (default false)"),
        ("serial.device", "PATH", "the receiver's serial device (required for source = serial)"),
        ("serial.baud", "auto|RATE", "auto (try the usual rates), 4800, 9600, 19200, 38400, 57600 or 115200 (default auto)"),
        ("sinks.stdout", "true|false", "events as JSON lines on standard output (default true)"),
        ("throttle.min_interval", "DURATION", "drop fixes sooner than this after the last update: 5s, 500ms, 1m (default off)"),
        ("throttle.min_distance", "METRES", "drop fixes nearer than this to the last update (default off)"),
        ("throttle.min_angle", "DEGREES", "send a fix the limits above would drop when the course turned by more than this (default off)"),
        ("state_directory", "PATH", "where the active share is kept (default $STATE_DIRECTORY or /var/lib/livelocd)"),
        ("journal.leftovers", "keep|discard|redirect",
         "events queued for a destination not configured now: keep them for it, discard them, or redirect them to the destination of the same kind (default keep)"),
        ("control.socket", "PATH", "the control socket (default $RUNTIME_DIRECTORY/control.sock or /run/livelocd/control.sock)"),
        ("control.group", "GROUP", "the group allowed to control the daemon (default livelocd-ctl)"),
        ("control.status_public", "true|false", "let anyone ask for the status; socket mode 0666 (default false)"),
        ("track.retention", "DURATION", "keep each share's accepted fixes this long after its last: 7d, 12h, off = none (default 7d)"),
        ("battery.path", "auto|off|PATH", "the battery whose level and charging go with every update: auto = the first of type Battery in /sys/class/power_supply, or a power supply directory (default auto)"),
        ("battery.interval", "DURATION", "how often the battery is read (default 1m)"),
        ("log.level", "debug|info|notice|warning|error", "the least severe log lines written; under systemd each carries its priority (default info; also --log-level)"),
    ] + PrivacySettings.keys

    /// The keys that may appear on several lines of a file, each line adding one value (such as a
    /// privacy zone); their `set` adds instead of replacing. Any other key set twice in one file is
    /// an error naming both lines.
    public static let repeatableKeys: Set<String> = PrivacySettings.repeatableKeys

    /// The `webhook.*` keys (see `WebhookSettings.keys` for their meaning).
    public static let webhookKeys: Set<String> = Set(WebhookSettings.keys.map(\.key))

    /// The webhook keys with their value forms and meanings, for `--help`.
    public static var webhookKeyHelp: [(key: String, value: String, meaning: String)] { WebhookSettings.keys }

    /// The `telegram.*` and `traccar.*` keys with their value forms and meanings, for `--help`.
    public static var telegramTraccarKeyHelp: [(key: String, value: String, meaning: String)] { TelegramSettings.keys + TraccarSettings.keys }

    /// The `mqtt.*` keys and the MQTT keys' value forms and meanings, for `--help` (see `MQTTSettings`).
    public static let mqttKeys: Set<String> = Set(MQTTSettings.keys.map(\.key))
    public static var mqttKeyHelp: [(key: String, value: String, meaning: String)] { MQTTSettings.keys }

    /// The MQTT destination's configuration, from the `mqtt.*` keys; nil without `mqtt.url`.
    package func mqttConfiguration(credentialsDirectory: String? = DaemonConfiguration.credentialsDirectory())
        throws(ConfigurationError) -> MQTTConfiguration? {
        try MQTTSettings.configuration(from: mqtt, credentialsDirectory: credentialsDirectory)
    }

    /// The webhook sink's configuration, from the `webhook.*` keys; nil without `webhook.url`.
    /// Reads the secret file (or `$CREDENTIALS_DIRECTORY/webhook-secret`).
    public func webhookConfiguration(credentialsDirectory: String? = DaemonConfiguration.credentialsDirectory())
        throws(ConfigurationError) -> WebhookConfiguration? {
        try WebhookSettings.configuration(from: webhook, stateDirectory: stateDirectory,
                                          credentialsDirectory: credentialsDirectory)
    }

    /// The durable destinations configured (each built from its keys): the webhook, …
    /// - Throws: `ConfigurationError` or the destination's own setup error.
    /// - Parameter reportsBattery: whether the device has a battery (Home Assistant's battery sensor).
    package func destinations(log: Logger = .silent, reportsBattery: Bool = false) throws -> [any Destination] {
        var result: [any Destination] = []
        if let webhook = try webhookConfiguration() { result.append(try WebhookDestination(configuration: webhook)) }
        if let telegram = try TelegramSettings.configuration(from: telegram, credentialsDirectory: Self.credentialsDirectory()) {
            result.append(try TelegramDestination(configuration: telegram, log: log))
        }
        if let traccar = try TraccarSettings.configuration(from: traccar) { result.append(try TraccarDestination(configuration: traccar, log: log)) }
        if var mqtt = try mqttConfiguration() {
            mqtt.reportsBattery = reportsBattery
            result.append(try MQTTDestination(configuration: mqtt, log: log))
        }
        return result
    }

    /// `$CREDENTIALS_DIRECTORY`, where systemd puts `LoadCredential=` files.
    public static func credentialsDirectory() -> String? {
        getenv("CREDENTIALS_DIRECTORY").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sets `key` from its text form.
    /// - Throws: `ConfigurationError` (unknown key or bad value), without a location.
    public mutating func set(_ key: String, to value: String) throws(ConfigurationError) {
        func bad(_ expected: String) -> ConfigurationError { .badValue(key: key, value: value, expected: expected, at: nil) }
        switch key {
        case "source":
            guard let source = Source(rawValue: value) else { throw bad("gpsd, replay or serial") }
            self.source = source
        case "gpsd.host":
            guard !value.isEmpty else { throw bad("a host name or address") }
            gpsdHost = value
        case "gpsd.port":
            guard let port = UInt16(value), port > 0 else { throw bad("a port number 1-65535") }
            gpsdPort = port
        case "gpsd.device":
            gpsdDevice = value.isEmpty ? nil : value
        case "replay.file":
            guard !value.isEmpty else { throw bad("a file path") }
            replayFile = value
        case "replay.speed":
            guard let speed = Double(value), speed.isFinite, speed >= 0 else { throw bad("a number >= 0 (0 = as fast as possible)") }
            replaySpeed = speed
        case "replay.loop":
            guard let flag = Self.bool(value) else { throw bad("true or false") }
            replayLoop = flag
        case "serial.device":
            guard !value.isEmpty else { throw bad("a device path") }
            serialDevice = value
        case "serial.baud":
            guard let baud = SerialBaud(argument: value) else { throw bad(SerialBaud.expected) }
            serialBaud = baud
        case "sinks.stdout":
            guard let flag = Self.bool(value) else { throw bad("true or false") }
            stdoutSink = flag
        case "throttle.min_interval":
            guard let interval = Self.duration(value) else { throw bad("\(Duration.textSyntax), or off") }
            throttle.minInterval = interval
        case "throttle.min_distance":
            if value == "off" { throttle.minDistanceMeters = nil; break }
            guard let metres = Double(value), metres.isFinite, metres >= 0 else { throw bad("metres >= 0, or off") }
            throttle.minDistanceMeters = metres == 0 ? nil : metres
        case "throttle.min_angle":
            if value == "off" { throttle.minAngleDegrees = nil; break }
            guard let degrees = Double(value), degrees.isFinite, degrees >= 0, degrees < 180 else {
                throw bad("degrees >= 0 and < 180, or off")
            }
            throttle.minAngleDegrees = degrees
        case "state_directory":
            guard value.hasPrefix("/") else { throw bad("an absolute path") }
            stateDirectory = value
        case "journal.leftovers":
            guard let policy = LeftoverPolicy(rawValue: value) else { throw bad("keep, discard or redirect") }
            leftovers = policy
        case "control.socket":
            guard !value.isEmpty, value.utf8.count < 108 else { throw bad("a socket path shorter than 108 bytes") }
            controlSocket = value
        case "control.group":
            guard !value.isEmpty else { throw bad("a group name or number") }
            controlGroup = value
        case "control.status_public":
            guard let flag = Self.bool(value) else { throw bad("true or false") }
            statusPublic = flag
        case "track.retention":
            guard let retention = Self.duration(value) else { throw bad("\(Duration.textSyntax), or off") }
            trackRetention = retention
        case "battery.path":
            guard value == "auto" || value == "off" || value.hasPrefix("/") else { throw bad("auto, off or an absolute path") }
            batteryPath = value
        case "battery.interval":
            guard let interval = Self.duration(value), let interval, interval >= .seconds(1) else {
                throw bad("a duration of at least 1s such as 30s, 1m, 5m")
            }
            batteryInterval = interval
        case "log.level":
            guard let level = LogLevel(name: value) else { throw bad(LogLevel.expected) }
            logLevel = level
        case "privacy.precision", "privacy.zone":
            try PrivacySettings.set(key, value, in: &privacy)
        case _ where Self.webhookKeys.contains(key):
            try WebhookSettings.check(key, value)
            webhook[key] = value
        case _ where key.hasPrefix("telegram."):
            try TelegramSettings.check(key, value)
            telegram[key] = value
        case _ where key.hasPrefix("traccar."):
            try TraccarSettings.check(key, value)
            traccar[key] = value
        case _ where key.hasPrefix("mqtt."):
            try MQTTSettings.check(key, value)
            mqtt[key] = value
        default:
            throw .unknownKey(key: key, at: nil)
        }
    }

    /// Applies the `key = value` lines of a configuration file's text.
    /// - Throws: `ConfigurationError` naming the file, line and key.
    public mutating func apply(fileText text: String, path: String) throws(ConfigurationError) {
        try apply(fileBytes: Array(text.utf8), path: path)
    }

    /// Applies the `key = value` lines of a configuration file's bytes: each line must be UTF-8,
    /// and each key but the `repeatable` ones may appear on one line only.
    /// - Throws: `ConfigurationError` naming the file, line and key (both lines for a duplicate).
    public mutating func apply(fileBytes bytes: [UInt8], path: String,
                               repeatable: Set<String> = DaemonConfiguration.repeatableKeys) throws(ConfigurationError) {
        var firstLines: [String: Int] = [:]
        for (index, rawBytes) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let location = ConfigurationError.Location(file: path, line: index + 1)
            guard let rawLine = String(validating: rawBytes, as: UTF8.self) else { throw .notUTF8(at: location) }
            var line = Substring(rawLine)
            if let hash = line.indices.first(where: { line[$0] == "#" && ($0 == line.startIndex || line[line.index(before: $0)] == " " || line[line.index(before: $0)] == "\t") }) {
                line = line[..<hash]
            }
            let content = Self.trimmed(line)
            guard !content.isEmpty else { continue }
            guard let equals = content.firstIndex(of: "=") else {
                throw .syntax(text: String(content), at: location)
            }
            let key = Self.trimmed(content[..<equals])
            let value = Self.trimmed(content[content.index(after: equals)...])
            guard !key.isEmpty else { throw .syntax(text: String(content), at: location) }
            if let first = firstLines[String(key)], !repeatable.contains(String(key)) {
                throw .duplicateKey(key: String(key), firstLine: first, at: location)
            }
            do { try set(String(key), to: String(value)) } catch { throw error.located(at: location) }
            firstLines[String(key)] = index + 1
        }
    }

    /// Reads and applies a configuration file. A missing file is the defaults when `required` is false.
    public mutating func apply(file path: String, required: Bool) throws(ConfigurationError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.openForReading(path)
        } catch let error as SystemError {
            if error.errno == ENOENT && !required { return }
            throw .unreadable(error)
        } catch {
            throw .unreadable(SystemError("open", target: path, errno: EIO))
        }
        defer { descriptor.close() }
        let bytes: [UInt8]
        do { bytes = try descriptor.readToEnd(limit: 1 << 20, path: path) } catch { throw .unreadable(error) }
        try apply(fileBytes: bytes, path: path)
    }

    /// Checks what single keys cannot: a replay needs its file, a serial source its device.
    public func validate() throws(ConfigurationError) {
        if source == .replay && replayFile == nil { throw .missingKey(key: "replay.file", because: "source = replay") }
        if source == .serial && serialDevice == nil { throw .missingKey(key: "serial.device", because: "source = serial") }
        _ = try webhookConfiguration()
        _ = try TelegramSettings.configuration(from: telegram, credentialsDirectory: Self.credentialsDirectory())
        _ = try TraccarSettings.configuration(from: traccar)
        _ = try mqttConfiguration()
    }

    /// The battery to read, per `battery.path`: nil when off, or when `auto` finds none.
    package func battery(log: Logger = .silent) -> PowerSupplyBattery? {
        switch batteryPath {
        case "off": return nil
        case "auto": return PowerSupplyBattery.find().map { PowerSupplyBattery(directory: $0, interval: batteryInterval, log: log) }
        default: return PowerSupplyBattery(directory: batteryPath, interval: batteryInterval, log: log)
        }
    }

    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        for name in ["STATE_DIRECTORY", "RUNTIME_DIRECTORY"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }

    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// `off` (or a zero duration): nil; otherwise the one duration syntax (`Duration(durationText:)`:
    /// `500ms`, `5s`, `15m`, `1h`, `7d`, a bare number being seconds). Nil when it is neither.
    static func duration(_ text: String) -> Duration?? {
        if text == "off" { return .some(nil) }
        guard let duration = Duration(durationText: text) else { return nil }
        return .some(duration == .zero ? nil : duration)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
