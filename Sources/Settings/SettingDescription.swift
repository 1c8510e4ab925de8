/// One configuration key, described: what `livelocd --help`, `liveloc share --help`,
/// livelocd.conf.example, livelocd.conf(5) and the README's key tables say of it all come from here.
package struct SettingDescription: Sendable, Equatable {
    /// The key in livelocd.conf, and livelocd's `--KEY` flag: `webhook.url`.
    package var key: String
    /// The value's form in help texts: `URL`, `true|false`, `DURATION`.
    package var value: String
    /// The value the key has when it is not set, as it would be written; nil when unset means "none".
    package var defaultValue: String?
    /// A value to show in the example configuration when there is no default.
    package var example: String?
    /// One line (without the default, which is added from `defaultValue`): what the key does.
    package var help: String
    /// The `liveloc share` option that sets the key (`--webhook`); nil when only livelocd has it.
    package var shareOption: String?
    /// Whether every line sets another value (a privacy zone) instead of replacing the last.
    package var isRepeatable = false
    /// Whether the value is a file holding a secret (read once, never logged).
    package var namesSecretFile = false

    package init(_ key: String, _ value: String, default defaultValue: String? = nil, example: String? = nil,
                 _ help: String, shareOption: String? = nil, isRepeatable: Bool = false, namesSecretFile: Bool = false) {
        self.key = key
        self.value = value
        self.defaultValue = defaultValue
        self.example = example
        self.help = help
        self.shareOption = shareOption
        self.isRepeatable = isRepeatable
        self.namesSecretFile = namesSecretFile
    }

    /// `help`, with the default: the line `--help` shows.
    package var helpWithDefault: String {
        defaultValue.map { "\(help) (default \($0))" } ?? help
    }
}

extension Sequence where Element == SettingsTable {
    /// livelocd's option of each key that `liveloc share` has an option for, to that option:
    /// `--replay.file` to `--replay`, `--state_directory` to `--state-directory` (the same meaning
    /// in both spellings, taken by both programs).
    package var optionsByKeyFlag: [String: String] {
        var pairs: [String: String] = [:]
        for table in self {
            for setting in table.settings { if let option = setting.shareOption { pairs["--" + setting.key] = option } }
        }
        return pairs
    }
}

/// A group of keys with a title and a paragraph: one section of livelocd.conf.example and of the
/// README's key tables.
package struct SettingsTable: Sendable, Equatable {
    package var title: String
    /// What the section is about, for the example configuration (a paragraph, unwrapped).
    package var about: String
    package var settings: [SettingDescription]

    package init(title: String, about: String, settings: [SettingDescription]) {
        self.title = title
        self.about = about
        self.settings = settings
    }
}
