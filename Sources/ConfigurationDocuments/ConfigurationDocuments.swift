import Delivery
import LiveLocation
import Settings

/// The documents made from the settings tables (livelocd's own, `DaemonSettings.tables`, and each
/// destination kind's): the example configuration the package installs as
/// /etc/livelocd/livelocd.conf, the README's key tables, the key sections of livelocd.conf(5) and
/// the package description's sentence naming the destination kinds (debian/control).
/// PackagingTests fails when a checked-in copy differs; `make docs` rewrites them all
/// (LIVELOCD_REGENERATE=1 swift test --filter PackagedConfigurationTests). Not in any shipped
/// program: only the tests and that command use it.
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

    /// Where a kind that has no section of its own in the README gets one (its title, its paragraph
    /// and its key table, between markers), to be written about by hand afterwards.
    package static let readmeNewKindsMarker = "<!-- NEW DESTINATION KINDS: make docs adds a section above this line for a kind that has none -->"

    /// `readme` with every generated block rewritten from the tables, and a section added, before
    /// `readmeNewKindsMarker`, for each kind that has no block yet.
    /// - Throws: `DocumentError` when a marker is missing or a block is not closed.
    package static func readme(_ readme: String, ownTables: [SettingsTable], kinds: [DestinationKind]) throws(DocumentError) -> String {
        var text = readme
        for block in readmeBlocks(ownTables: ownTables, kinds: kinds) {
            let begin = "<!-- BEGIN KEYS \(block.name) -->\n", end = "<!-- END KEYS \(block.name) -->"
            guard let start = text.firstUTF8Range(of: begin) else {
                let kind = kinds.first { $0.name == block.name }
                guard let kind, let marker = text.firstUTF8Range(of: readmeNewKindsMarker) else { throw .missing(begin) }
                let section = "### \(kind.table.title)\n\n\(kind.table.about)\n\n\(begin)\(block.text)\(end)\n\n"
                text.replaceSubrange(marker.lowerBound..<marker.lowerBound, with: section)
                continue
            }
            guard let stop = text[start.upperBound...].firstUTF8Range(of: end) else { throw .missing(end) }
            text.replaceSubrange(start.upperBound..<stop.lowerBound, with: block.text)
        }
        return text
    }

    /// The key sections of livelocd.conf(5): one `.SH` per table (its title in capitals), each key a
    /// tagged paragraph with its value form, meaning and default.
    package static func manualKeys(_ tables: [SettingsTable]) -> String {
        var lines: [String] = []
        for table in tables {
            lines.append(".SH " + table.title.uppercased())
            for setting in table.settings {
                lines += [".TP", ".B " + setting.key, "\\fI" + roff(setting.value) + "\\fP: " + roff(setting.helpWithDefault) + "."]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The manual page `page` with the part between its `.\" BEGIN KEYS` and `.\" END KEYS` lines
    /// rewritten (`manualKeys`).
    /// - Throws: `DocumentError` when a marker is missing.
    package static func manualPage(_ page: String, tables: [SettingsTable]) throws(DocumentError) -> String {
        try replacingLines(of: page, between: ".\\\" BEGIN KEYS", and: ".\\\" END KEYS", with: manualKeys(tables))
    }

    /// The package's description of its destinations, in debian/control between the comment lines
    /// `# BEGIN DESTINATION KINDS` and `# END DESTINATION KINDS`: one sentence naming every kind by
    /// its title, wrapped as a control file's continuation lines.
    package static func packageDescriptionKinds(_ kinds: [DestinationKind]) -> String {
        let titles = kinds.map(\.table.title)
        let list = titles.count > 1 ? titles.dropLast().joined(separator: ", ") + " and " + titles[titles.count - 1] : titles.joined()
        let sentence = "It shares to these destinations (see livelocd.conf(5)): \(list)."
        return WordWrapping.lines(sentence, first: " ", next: " ", width: 76).joined(separator: "\n") + "\n"
    }

    /// debian/control with its destinations' sentence rewritten (`packageDescriptionKinds`).
    /// - Throws: `DocumentError` when a marker is missing.
    package static func packageControl(_ control: String, kinds: [DestinationKind]) throws(DocumentError) -> String {
        try replacingLines(of: control, between: "# BEGIN DESTINATION KINDS", and: "# END DESTINATION KINDS",
                           with: packageDescriptionKinds(kinds))
    }

    /// `document` with the lines after the line that starts with `begin` and before the line that
    /// starts with `end` replaced by `lines` (the marker lines kept).
    /// - Throws: `DocumentError` when a marker is missing.
    private static func replacingLines(of document: String, between begin: String, and end: String,
                                       with lines: String) throws(DocumentError) -> String {
        guard let start = document.firstUTF8Range(of: begin) else { throw .missing(begin) }
        guard let stop = document[start.upperBound...].firstUTF8Range(of: end) else { throw .missing(end) }
        let body = document[start.upperBound...].firstIndex(of: "\n").map { document.index(after: $0) } ?? stop.lowerBound
        var text = document
        text.replaceSubrange(body..<stop.lowerBound, with: lines)
        return text
    }

    /// Text as roff prints it: backslashes and hyphens escaped, a leading control character defused.
    static func roff(_ text: String) -> String {
        let escaped = text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
        return escaped.first == "." || escaped.first == "'" ? "\\&" + escaped : escaped
    }
}

/// A checked-in document whose generated part cannot be found.
package enum DocumentError: Error, Equatable, CustomStringConvertible {
    /// The marker line that is not there.
    case missing(String)

    package var description: String {
        switch self {
        case .missing(let marker): "no \(marker) in the document"
        }
    }
}

extension String {
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
