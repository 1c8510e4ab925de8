import Control
import Delivery
import DestinationKinds
import GPSD
import Journal
#if canImport(Glibc)
import Glibc
#endif
import LiveLocation
import Serial
import Settings
import SourceKinds
import SystemIO

/// Everything `livelocd` is told by its configuration file and its command line.
///
/// The file is UTF-8 text with one `key = value` per line; `#` starts a comment (at the start of a
/// line or after white space); blank lines are ignored. A key may appear on one line only, except
/// the `repeatableKeys`, whose every line adds a value. Every key is also a command-line flag
/// `--KEY VALUE` (or `--KEY=VALUE`), which overrides the file.
package struct DaemonConfiguration: Sendable, Equatable {
    /// Where fixes come from: the source's kind and its settings (`source`, `gpsd.*`, `replay.*`,
    /// `serial.*`), in the form `SourcePlan.make` opens for livelocd and `liveloc share` alike.
    package var source = SourceSettings(kind: .gpsd)
    /// Whether events go to standard output as JSON lines.
    package var writesStdout = true
    package var throttle = Throttle.off
    /// What the shares reveal of each fix (`privacy.*`, see PrivacySettings).
    package var privacy = PrivacyFilter.off
    /// How long a share's track is kept after its last fix (`track.retention`); nil keeps none.
    package var trackRetention: Duration? = .seconds(7 * 86_400)
    package var stateDirectory: String
    /// What happens at start to events queued for destinations not configured now (`journal.leftovers`).
    package var leftovers = LeftoverPolicy.keep
    /// How long an update may wait for a disk sync that carries several (`journal.sync_delay`); nil: none waits.
    package var syncDelay: Duration?
    package var controlSocket: String
    /// The group whose members may control the daemon (besides root and the daemon's own user).
    package var controlGroup = "livelocd-ctl"
    /// Whether anyone who can reach the socket may ask for the status. The socket the daemon makes
    /// itself is then mode 0666 instead of 0660.
    package var statusPublic = false
    /// The destinations' keys (`webhook.*`, `mqtt.*`, …) as set, each value checked by its kind;
    /// the kinds read them as a whole in `configuredDestinations()`.
    package var destinationSettings: [String: String] = [:]
    /// The kinds of destination whose keys this configuration takes (`DestinationKinds.all`).
    package var kinds: [DestinationKind]
    /// The power supply whose battery goes into every update: `auto` (the first of type Battery in
    /// /sys/class/power_supply), `off`, or a power supply's directory.
    package var batteryPath = "auto"
    /// How often the battery is read.
    package var batteryInterval: Duration = PowerSupplyBattery.defaultInterval
    /// The least severe log lines written (`log.level`, `--log-level`).
    package var logLevel = LogLevel.info

    /// The defaults; `environment` supplies `STATE_DIRECTORY` and `RUNTIME_DIRECTORY` (set by systemd).
    package init(environment: [String: String] = DaemonConfiguration.processEnvironment()) {
        self.init(environment: environment, kinds: DestinationKinds.all)
    }

    /// The defaults, with these destination kinds (a test adds one of its own).
    package init(environment: [String: String], kinds: [DestinationKind]) {
        self.kinds = kinds
        let state = environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
        stateDirectory = state ?? "/var/lib/livelocd"
        controlSocket = ControlProtocol.defaultSocketPath(runtimeDirectory: environment["RUNTIME_DIRECTORY"])
    }

    /// The configuration file read when `--config` is not given; its absence means the defaults.
    package static let defaultFile = "/etc/livelocd/livelocd.conf"

    /// Every key this configuration takes, in tables: the daemon's own (`DaemonSettings.tables`),
    /// then each destination kind's. `livelocd --help`, its `--KEY` flags, livelocd.conf.example,
    /// livelocd.conf(5) and the README's key tables come from these.
    package var tables: [SettingsTable] { DaemonSettings.tables + kinds.map(\.table) }

    /// livelocd's own keys (the source, what a share sends, privacy, tracks, the daemon).
    package static var ownTables: [SettingsTable] { DaemonSettings.tables }

    /// Every key, described, in the order of `tables`.
    package var settings: [SettingDescription] { tables.flatMap(\.settings) }

    /// The keys that may appear on several lines of a file, each line adding one value (such as a
    /// privacy zone); their `set` adds instead of replacing. Any other key set twice in one file is
    /// an error naming both lines.
    package var repeatableKeys: Set<String> { Set(settings.filter(\.isRepeatable).map(\.key)) }

    /// The destinations configured, each read and checked as a whole (its secret files read, once),
    /// ready to be built.
    /// - Throws: `ConfigurationError` naming the key.
    package func configuredDestinations(credentialsDirectory: String? = DaemonConfiguration.credentialsDirectory())
        throws(ConfigurationError) -> [ConfiguredDestination] {
        var result: [ConfiguredDestination] = []
        for kind in kinds {
            let values = destinationSettings.filter { $0.key.hasPrefix(kind.name + ".") }
            do {
                if let configured = try kind.configure(values, SettingEnvironment(credentialsDirectory: credentialsDirectory)) {
                    result.append(configured)
                }
            } catch { throw ConfigurationError(error) }
        }
        return result
    }

    /// `$CREDENTIALS_DIRECTORY`, where systemd puts `LoadCredential=` files.
    package static func credentialsDirectory() -> String? {
        Credentials.directory()
    }

    /// Sets `key` from its text form.
    /// - Throws: `ConfigurationError` (unknown key or bad value), without a location.
    package mutating func set(_ key: String, to value: String) throws(ConfigurationError) {
        if let kind = kinds.first(where: { key.hasPrefix($0.name + ".") }) {
            do { try kind.check(key, value) } catch { throw ConfigurationError(error) }
            destinationSettings[key] = value
            return
        }
        guard DaemonSettings.tables.contains(where: { $0.settings.contains { $0.key == key } }) else {
            throw .unknownKey(key: key, at: nil)
        }
        func bad(_ expected: String) -> ConfigurationError { .badValue(key: key, value: value, expected: expected, at: nil) }
        switch key {
        case "source":
            guard let kind = SourceKind(rawValue: value) else { throw bad("gpsd, replay or serial") }
            source.kind = kind
        case "gpsd.host":
            guard !value.isEmpty else { throw bad("a host name or address") }
            source.gpsd.host = value
        case "gpsd.port":
            guard let port = UInt16(value), port > 0 else { throw bad("a port number 1-65535") }
            source.gpsd.port = port
        case "gpsd.device":
            source.gpsdDevice = value.isEmpty ? nil : value
        case "replay.file":
            guard !value.isEmpty else { throw bad("a file path") }
            source.replayFile = value
        case "replay.speed":
            guard let speed = Double(value), speed.isFinite, speed >= 0 else { throw bad("a number >= 0 (0 = as fast as possible)") }
            source.replaySpeed = speed
        case "replay.loop":
            guard let flag = Self.bool(value) else { throw bad("true or false") }
            source.replayLoop = flag
        case "serial.device":
            guard !value.isEmpty else { throw bad("a device path") }
            source.serialDevice = value
        case "serial.baud":
            guard let baud = SerialBaud(argument: value) else { throw bad(SerialBaud.expected) }
            source.serialBaud = baud
        case "sinks.stdout":
            guard let flag = Self.bool(value) else { throw bad("true or false") }
            writesStdout = flag
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
        case "journal.sync_delay":
            guard let delay = Self.duration(value), (delay ?? .zero) <= .seconds(60) else { throw bad("a duration up to 1m such as 2s, 5s, or off") }
            syncDelay = delay
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
        default:
            throw .unknownKey(key: key, at: nil)
        }
    }

    /// Applies the `key = value` lines of a configuration file's text.
    /// - Throws: `ConfigurationError` naming the file, line and key.
    package mutating func apply(fileText text: String, path: String) throws(ConfigurationError) {
        try apply(fileBytes: Array(text.utf8), path: path)
    }

    /// Applies the `key = value` lines of a configuration file's bytes: each line must be UTF-8,
    /// and each key but the `repeatable` ones may appear on one line only.
    /// - Throws: `ConfigurationError` naming the file, line and key (both lines for a duplicate).
    package mutating func apply(fileBytes bytes: [UInt8], path: String, repeatable: Set<String>? = nil) throws(ConfigurationError) {
        let repeatable = repeatable ?? repeatableKeys
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
    package mutating func apply(file path: String, required: Bool) throws(ConfigurationError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.openForReading(path)
        } catch let error as SystemError {
            if error.errno == .noSuchFileOrDirectory && !required { return }
            throw .unreadable(error)
        } catch {
            throw .unreadable(SystemError("open", target: path, errno: .ioError))
        }
        defer { descriptor.close() }
        let bytes: [UInt8]
        do { bytes = try descriptor.readToEnd(limit: 1 << 20, path: path) } catch { throw .unreadable(error) }
        try apply(fileBytes: bytes, path: path)
    }

    /// Checks what single keys cannot: a replay needs its file, a serial source its device. (The
    /// destinations' keys are checked as a whole by `configuredDestinations()`.)
    package func validate() throws(ConfigurationError) {
        if source.kind == .replay && source.replayFile == nil { throw .missingKey(key: "replay.file", because: "source = replay") }
        if source.kind == .serial && source.serialDevice == nil { throw .missingKey(key: "serial.device", because: "source = serial") }
    }

    /// The battery to read, per `battery.path`: nil when off, or when `auto` finds none.
    package func battery(log: Logger = .silent) -> PowerSupplyBattery? {
        switch batteryPath {
        case "off": return nil
        case "auto": return PowerSupplyBattery.find().map { PowerSupplyBattery(directory: $0, interval: batteryInterval, log: log) }
        default: return PowerSupplyBattery(directory: batteryPath, interval: batteryInterval, log: log)
        }
    }

    package static func processEnvironment() -> [String: String] {
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
