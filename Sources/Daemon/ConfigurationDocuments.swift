import Delivery

/// The documents made from the settings tables (`DaemonConfiguration.tables`): the example
/// configuration the package installs as /etc/livelocd/livelocd.conf, and the README's key tables.
/// PackagingTests fails when a checked-in copy differs (and rewrites it with LIVELOCD_REGENERATE=1).
package enum ConfigurationDocuments {
    /// systemd/livelocd.conf.example: every key, commented out, with its default (or, marked
    /// `# example`, a value for a key that has none), under its table's title and paragraph.
    package static func exampleConfiguration(_ tables: [SettingsTable]) -> String {
        var lines = [
            "# /etc/livelocd/livelocd.conf: livelocd's configuration (livelocd.conf(5)).",
            "#",
            "# One `key = value` per line; `#` starts a comment. Every key livelocd knows is listed here,",
            "# commented out, with its default value: uncomment a line and change its value to change the",
            "# setting. A line marked `# example` shows a value for a key that has no default (the setting is off",
            "# until it is set). Each key is also a command-line option, which overrides this file:",
            "#     livelocd --replay.speed 10 --sinks.stdout false",
            "# An unknown key or a bad value stops livelocd with exit status 2, naming the file, line and key.",
            "# Durations take a unit: 500ms, 5s, 15m, 1h, 7d (a bare number is seconds); off disables.",
            "# livelocd --help and livelocd.conf(5) describe the same keys.",
        ]
        for table in tables {
            lines += ["", "## \(table.title)"] + WordWrapping.lines(table.about, first: "# ", next: "# ")
            for setting in table.settings {
                lines += WordWrapping.lines(setting.helpWithDefault + (setting.shareOption.map { "; liveloc share \($0)" } ?? "") + ".",
                                            first: "#   ", next: "#   ")
                if let value = setting.defaultValue {
                    lines.append("# \(setting.key) = \(value)")
                } else {
                    lines.append("# \(setting.key) = \(setting.example ?? setting.value)   # example")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A README table of `tables`' keys (with `liveloc share`'s option where there is one).
    package static func markdownTable(_ tables: [SettingsTable]) -> String {
        var lines = ["| key (`liveloc share` option) | values | default |", "| --- | --- | --- |"]
        for setting in tables.flatMap(\.settings) {
            let key = "`\(setting.key)`" + (setting.shareOption.map { " (`\($0)`)" } ?? "")
            let values = "`\(setting.value.replacingAll("|", with: "\\|"))`: " + setting.help.replacingAll("|", with: "\\|")
            lines.append("| \(key) | \(values) | \(setting.defaultValue.map { "`\($0)`" } ?? "none") |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The README's generated blocks: `<!-- BEGIN KEYS NAME -->` … `<!-- END KEYS NAME -->`, by name:
    /// `livelocd` for the daemon's own tables, each destination kind's name for its table.
    package static func readmeBlocks(ownTables: [SettingsTable], kinds: [DestinationKind]) -> [(name: String, text: String)] {
        [("livelocd", markdownTable(ownTables))] + kinds.map { ($0.name, markdownTable([$0.table])) }
    }
}

extension String {
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
