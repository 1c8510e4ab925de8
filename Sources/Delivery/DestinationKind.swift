import Settings
import SystemIO

/// One setting of a destination kind: its description and the check of one value.
package struct DestinationSetting: Sendable {
    package var description: SettingDescription
    /// Checks one value as it is set (so that a bad one names its file and line, or its option).
    package var check: @Sendable (String) throws(SettingError) -> Void

    package init(_ description: SettingDescription, check: @escaping @Sendable (String) throws(SettingError) -> Void) {
        self.description = description
        self.check = check
    }

    /// A setting whose value names a file by its absolute path (a relative one would depend on the
    /// directory the daemon happens to start in).
    package static func absolutePath(_ description: SettingDescription) -> DestinationSetting {
        DestinationSetting(description) { value throws(SettingError) in try checkAbsolutePath(description.key, value) }
    }

    /// A setting whose value names, by its absolute path, a file that must be there from the start
    /// (a CA bundle): one that is missing or that this process cannot read stops start-up naming the
    /// key, instead of failing every request later.
    package static func readableFile(_ description: SettingDescription) -> DestinationSetting {
        DestinationSetting(description) { value throws(SettingError) in try checkReadableFile(description.key, value) }
    }

    /// - Throws: `badValue` naming `key` unless `value` is an absolute path.
    package static func checkAbsolutePath(_ key: String, _ value: String) throws(SettingError) {
        guard value.hasPrefix("/") else { throw .badValue(key: key, value: value, expected: "an absolute path") }
    }

    /// Checks that `value` is an absolute path to a file this process can open for reading now
    /// (not a directory).
    /// - Throws: `badValue` naming `key`, with the system's reason (`No such file or directory`).
    package static func checkReadableFile(_ key: String, _ value: String) throws(SettingError) {
        try checkAbsolutePath(key, value)
        do throws(SystemError) { try FileSystem.checkReadable(value) } catch {
            throw .badValue(key: key, value: value, expected: "a readable file (\(error.errno.message))")
        }
    }
}

/// Where a destination's settings are read: what the environment adds to the keys.
package struct SettingEnvironment: Sendable {
    /// `$CREDENTIALS_DIRECTORY` (systemd's `LoadCredential=`): where a secret not named by a key is.
    package var credentialsDirectory: String?

    package init(credentialsDirectory: String?) {
        self.credentialsDirectory = credentialsDirectory
    }
}

/// What a destination is built with besides its settings.
package struct DestinationContext: Sendable {
    package var log: Logger
    /// Whether the device reports a battery (Home Assistant's battery sensor).
    package var reportsBattery: Bool
    /// Whether the destination runs in livelocd (which may take commands from it), not `liveloc share`.
    package var inDaemon: Bool
    /// How long ago the source's newest fix arrived (nil: none yet); nil when not known (the share
    /// link's heartbeats then say nothing about the fix).
    package var lastFixAge: (@Sendable () -> Duration?)?
    /// The shares' links, for a destination that passes them on (Home Assistant's attributes).
    package var shareLinks: ShareLinks?

    package init(log: Logger, reportsBattery: Bool = false, inDaemon: Bool = true, lastFixAge: (@Sendable () -> Duration?)? = nil,
                 shareLinks: ShareLinks? = nil) {
        self.log = log
        self.reportsBattery = reportsBattery
        self.inDaemon = inDaemon
        self.lastFixAge = lastFixAge
        self.shareLinks = shareLinks
    }
}

/// A destination whose settings were read and checked (its secret files read, once): what is left
/// is to build it.
package struct ConfiguredDestination: Sendable {
    package var kind: String
    package var make: @Sendable (DestinationContext) throws -> any Destination

    package init(kind: String, make: @escaping @Sendable (DestinationContext) throws -> any Destination) {
        self.kind = kind
        self.make = make
    }
}

/// A kind of destination, describing itself: its settings (keys `NAME.*`, their `liveloc share`
/// options, help and defaults) and how it is built from them. A new destination is a module that
/// exports one of these, and one line in the list of kinds (`DestinationKinds.all`).
package struct DestinationKind: Sendable, Equatable {
    /// The keys' prefix: `webhook` for `webhook.*`.
    package var name: String
    /// The key that configures a destination of this kind (`webhook.url`): without it the kind is
    /// not configured, and any other of its keys set is an error naming it.
    package var mainKey: String
    package var table: SettingsTable
    package var settings: [DestinationSetting]
    /// Builds the destination from the values of this kind's keys, `mainKey` among them.
    private var build: @Sendable ([String: String], SettingEnvironment) throws(SettingError) -> ConfiguredDestination?

    /// - Parameters:
    ///   - mainKey: the key that configures the destination; nil: the first setting's.
    ///   - configure: the destination the values configure, called only when `mainKey` is set (with
    ///     this kind's keys only); reads its secret files.
    package init(name: String, title: String, about: String, mainKey: String? = nil, settings: [DestinationSetting],
                 configure: @escaping @Sendable ([String: String], SettingEnvironment) throws(SettingError) -> ConfiguredDestination?) {
        self.name = name
        self.mainKey = mainKey ?? settings.first?.description.key ?? name
        self.table = SettingsTable(title: title, about: about, settings: settings.map(\.description))
        self.settings = settings
        self.build = configure
    }

    /// Kinds are told apart by their name (the keys' prefix).
    package static func == (lhs: DestinationKind, rhs: DestinationKind) -> Bool { lhs.name == rhs.name }

    /// Checks `value` for `key`. - Throws: `unknownKey` for a key that is not this kind's.
    package func check(_ key: String, _ value: String) throws(SettingError) {
        guard let setting = settings.first(where: { $0.description.key == key }) else { throw .unknownKey(key) }
        try setting.check(value)
    }

    /// The kind's part of `liveloc share`'s synopsis, word by word: the main key's option and its
    /// value, then each other option in brackets, all in brackets (`[--traccar URL`,
    /// `[--traccar-id ID]`, `[--traccar-ca-file PATH]]`); empty when the main key has no option.
    package var shareSynopsis: [String] {
        guard let main = table.settings.first(where: { $0.key == mainKey }), let option = main.shareOption else { return [] }
        let others = table.settings.filter { $0.key != mainKey }.compactMap { setting in
            setting.shareOption.map { "[\($0) \(setting.value)]" }
        }
        var words = ["[\(option) \(main.value)"] + others
        words[words.count - 1] += "]"
        return words
    }

    /// The destination `values` (of this kind's keys only) configure, or nil when none of its keys
    /// is set. Reads its secret files.
    /// - Throws: `missingKey` naming `mainKey` when another of the kind's keys is set without it;
    ///   whatever the kind's own checks throw.
    package func configure(_ values: [String: String], _ environment: SettingEnvironment) throws(SettingError) -> ConfiguredDestination? {
        guard values[mainKey] != nil else {
            if let stray = values.keys.sorted().first { throw .missingKey(mainKey, because: stray) }
            return nil
        }
        return try build(values, environment)
    }
}
