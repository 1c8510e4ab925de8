import ArgumentParsing
import Delivery
import DestinationKinds
import Journal
import SystemIO
import Settings
#if canImport(Glibc)
import Glibc
#endif

/// `liveloc share`'s destination options: every destination kind's settings that have a
/// `shareOption` (`--webhook`, `--telegram-chat`, `--mqtt-qos`, …), each setting the daemon's key of
/// the same meaning and checked by the kind's own code, so that a value is good or bad in both
/// places alike; plus where the journal is and what becomes of an earlier run's leftovers.
struct ShareDestinationOptions {
    /// One option of a destination kind.
    struct Option {
        var kind: DestinationKind
        var setting: SettingDescription
        var name: String
    }

    static let destinationOptions: [Option] = DestinationKinds.all.flatMap { kind in
        kind.table.settings.compactMap { setting in setting.shareOption.map { Option(kind: kind, setting: setting, name: $0) } }
    }

    /// The options this file adds to `liveloc share`.
    static let options: [String: Arguments.Kind] = Dictionary(
        uniqueKeysWithValues: destinationOptions.map { ($0.name, Arguments.Kind.value) }
            + [("--leftovers", .value), ("--drain-timeout", .value), ("--state-directory", .value), ("--outbox", .value)])

    /// For `liveloc share --help`'s usage: each kind's options (`DestinationKind.shareSynopsis`),
    /// then the journal's, wrapped under the synopsis' other lines.
    static let synopsis: String = (DestinationKinds.all.map(\.shareSynopsis) + [[
        "[--state-directory DIR]", "[--drain-timeout DURATION]", "[--leftovers keep|discard|redirect]",
    ]]).filter { !$0.isEmpty }.flatMap { words in
        WordWrapping.lines(words: words, first: String(repeating: " ", count: 21), next: String(repeating: " ", count: 22))
    }.joined(separator: "\n")

    /// For `liveloc share --help`: each kind's options, from its table.
    static let help: String = DestinationKinds.all.map { kind in
        destinationOptions.filter { $0.kind == kind }.map { option in
            helpLine("\(option.name) \(option.setting.value)", option.setting.helpWithDefault)
        }.joined(separator: "\n")
    }.joined(separator: "\n") + "\n" + """
          --state-directory DIR  where the journal is kept (default $XDG_STATE_HOME/liveloc or
                              ~/.local/state/liveloc); undelivered events stay there and go out at the
                              next run with the same directory
          --outbox PATH       an outbox of an earlier version: taken over, its directory is the state
                              directory
          --drain-timeout D   after the share ended, wait at most D (30s, 2m) for the destinations
                              to take every event (default 30s); what is left stays in the journal
          --leftovers P       events an earlier run with this state directory queued for a destination
                              not given now: keep (default: they wait for a run to that receiver, and
                              each queue is named at start), discard them, or redirect them to the
                              destination of the same kind given now (only if it is the same party)
        """

    /// The destinations given, their settings read and checked (secret files read once).
    var configured: [ConfiguredDestination] = []
    /// `--state-directory`, when given (or the directory of a legacy `--outbox`): where the journal is kept.
    var stateDirectory: String?
    /// `--outbox`: a legacy webhook outbox to take over.
    var legacyOutbox: String?
    /// `--leftovers`: what becomes of events an earlier run queued for a destination not given now.
    var leftovers = LeftoverPolicy.keep
    /// `--drain-timeout`: how long the destinations get, after the share ended, to take what is queued.
    var drainTimeout = Duration.seconds(30)

    /// Reads the options from `arguments`.
    /// - Throws: `UsageError` naming the option for a missing or bad value, `CommandFailure` (exit 2)
    ///   for a file that cannot be used.
    init(_ arguments: Arguments) throws {
        legacyOutbox = arguments.value("--outbox")
        stateDirectory = arguments.value("--state-directory")
            ?? legacyOutbox.map { path in path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "." }
        if let timeout = try arguments.value("--drain-timeout", as: Duration.textSyntax, Duration.init(durationText:)) {
            drainTimeout = min(timeout, .seconds(86_400))
        }
        leftovers = try arguments.value("--leftovers", as: "keep, discard or redirect", LeftoverPolicy.init(rawValue:)) ?? .keep
        for kind in DestinationKinds.all {
            var values: [String: String] = [:]
            for option in Self.destinationOptions where option.kind == kind {
                guard var value = arguments.value(option.name) else { continue }
                if option.setting.value == "PATH", !value.hasPrefix("/"), !value.isEmpty { value = Self.absolute(value) }
                do { try kind.check(option.setting.key, value) } catch {
                    throw UsageError(Self.inOptionWords(error, value: value))
                }
                values[option.setting.key] = value
            }
            do {
                if let destination = try kind.configure(values, SettingEnvironment(credentialsDirectory: nil)) {
                    configured.append(destination)
                }
            } catch {
                if case .badValue = error { throw CommandFailure(Self.inOptionWords(error, value: nil), exitStatus: 2) }
                throw UsageError(Self.inOptionWords(error, value: nil))
            }
        }
        if legacyOutbox != nil, !configured.contains(where: { $0.kind == "webhook" }) {
            throw UsageError("--outbox needs --webhook URL")
        }
    }

    /// The destinations given, built (libcurl and libmosquitto are loaded when one needs them).
    /// - Throws: `CommandFailure` when a library cannot be loaded.
    func destinations(log: Logger) throws -> [any Destination] {
        let shareLinks = ShareLinks()
        let context = DestinationContext(log: log, inDaemon: false, shareLinks: shareLinks)
        do {
            let destinations = try configured.map { try $0.make(context) }
            shareLinks.attach(destinations)
            return destinations
        } catch { throw CommandFailure("\(error)") }
    }

    /// A setting error in the command's words: the options' names for the keys'.
    private static func inOptionWords(_ error: SettingError, value: String?) -> String {
        func option(_ key: String) -> Option? { destinationOptions.first { $0.setting.key == key } }
        switch error {
        case .badValue(let key, let value, let expected):
            guard let option = option(key) else { return "\(error)" }
            return "invalid value '\(value)' for \(option.name): expected \(expected)"
        case .missingKey(let key, let because, let hint):
            guard let needed = option(key) else { return "\(error)" }
            let by = option(because)?.name ?? because
            return "\(by) needs \(needed.name) \(needed.setting.value)\(hint.map { " " + $0 } ?? "")"
        case .unknownKey:
            return "\(error)"
        }
    }

    /// `path` from the current directory.
    private static func absolute(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (directory == "/" ? "" : directory) + "/" + path
    }

    /// One option's help: the option and its value, then the text from column 23 on, wrapped at 100.
    static func helpLine(_ option: String, _ text: String) -> String {
        let indent = String(repeating: " ", count: 22)
        let name = "  " + option
        // A long option name has its line alone; the help starts on the next, indented.
        guard name.count <= 20 else { return ([name] + WordWrapping.lines(text, first: indent, next: indent)).joined(separator: "\n") }
        let first = name + String(repeating: " ", count: 22 - name.count)
        return WordWrapping.lines(text, first: first, next: indent, keepsFirst: true).joined(separator: "\n")
    }
}
