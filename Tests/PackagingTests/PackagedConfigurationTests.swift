import ConfigurationDocuments
import Daemon
import Foundation
import Settings
import Testing
import TestSupport

/// /etc/livelocd/livelocd.conf as the package installs it (systemd/livelocd.conf.example) and the
/// manual page livelocd.conf(5) against the keys the daemon knows: a key added to the daemon and
/// not to these, a key removed from it or a default changed fails here.
@Suite struct PackagedConfigurationTests {
    /// One `# key = value` line of the file, uncommented; `isExample` when its comment says `# example`.
    struct Assignment {
        var key: String
        var value: String
        var isExample: Bool
        var line: String
    }

    static let file = Paths.packageRoot.appendingPathComponent("systemd/livelocd.conf.example")

    /// Every key livelocd takes, from its own tables (the ones `livelocd --help` lists).
    static var knownKeys: [(key: String, value: String, meaning: String)] {
        DaemonConfiguration(environment: [:]).settings.map { ($0.key, $0.value, $0.helpWithDefault) }
    }

    static func assignments(_ text: String) -> [Assignment] {
        text.split(separator: "\n").compactMap { line -> Assignment? in
            guard line.hasPrefix("# ") else { return nil }
            let body = line.dropFirst(2)
            guard let equals = body.range(of: " = ") else { return nil }
            let key = String(body[..<equals.lowerBound])
            guard !key.isEmpty, key.allSatisfy({ $0.isLowercase || $0 == "_" || $0 == "." }) else { return nil }
            var value = body[equals.upperBound...]
            var isExample = false
            if let comment = value.range(of: " #") {
                isExample = value[comment.upperBound...].trimmingCharacters(in: .whitespaces).hasPrefix("example")
                value = value[..<comment.lowerBound]
            }
            return Assignment(key: key, value: value.trimmingCharacters(in: .whitespaces), isExample: isExample,
                              line: String(body))
        }
    }

    @Test func asShippedTheFileIsTheDefaults() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        var configuration = DaemonConfiguration(environment: [:])
        try configuration.apply(fileText: text, path: "livelocd.conf")
        #expect(configuration == DaemonConfiguration(environment: [:]))
    }

    @Test func everyKeyTheDaemonKnowsIsListedAndNoOther() throws {
        let listed = Self.assignments(try String(contentsOf: Self.file, encoding: .utf8))
        let known = Set(Self.knownKeys.map(\.key))
        let missing = known.subtracting(listed.map(\.key)).sorted()
        let unknown = Set(listed.map(\.key)).subtracting(known).sorted()
        #expect(missing.isEmpty, "keys livelocd knows that livelocd.conf does not list: \(missing)")
        #expect(unknown.isEmpty, "keys livelocd.conf lists that livelocd does not know: \(unknown)")
        let counts = Dictionary(listed.map { ($0.key, 1) }, uniquingKeysWith: +)
        #expect(counts.filter { $0.value > 1 }.isEmpty, "keys listed twice: \(counts.filter { $0.value > 1 }.keys.sorted())")
    }

    /// The lines not marked as examples show the defaults: uncommented, the daemon's own settings
    /// do not change; for a destination's keys (kept as text until the destination is built) the
    /// value is the default the daemon's help states.
    @Test func everyLineNotMarkedAsAnExampleShowsTheDefault() throws {
        let listed = Self.assignments(try String(contentsOf: Self.file, encoding: .utf8))
        let meanings = Dictionary(Self.knownKeys.map { ($0.key, $0.meaning) }, uniquingKeysWith: { first, _ in first })
        var configuration = DaemonConfiguration(environment: [:])
        let destinationPrefixes = configuration.kinds.map { $0.name + "." }
        for assignment in listed where !assignment.isExample {
            if destinationPrefixes.contains(where: assignment.key.hasPrefix) {
                let meaning = try #require(meanings[assignment.key])
                #expect(meaning.contains("default \(assignment.value)"),
                        "\(assignment.line): the daemon's help says \"\(meaning)\"")
            } else {
                try configuration.set(assignment.key, to: assignment.value)
            }
        }
        #expect(configuration == DaemonConfiguration(environment: [:]), "a line shows a value that is not the default")
    }

    /// Uncommented all at once (examples too), every line is a valid setting. A destination's
    /// files (a CA file must be readable when it is set) are not on this machine: each example path,
    /// absolute, is replaced by a readable file of the test's own.
    @Test func everyLineUncommentedIsValid() throws {
        let listed = Self.assignments(try String(contentsOf: Self.file, encoding: .utf8))
        let directory = try Paths.temporaryDirectory("uncommented")
        defer { try? FileManager.default.removeItem(at: directory) }
        let readable = directory.appendingPathComponent("file.pem").path
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: readable, atomically: true, encoding: .utf8)
        let destinationFiles = Set(DaemonConfiguration(environment: [:]).kinds.flatMap(\.table.settings)
            .filter { $0.value == "PATH" }.map(\.key))
        let lines = listed.map { assignment in
            guard destinationFiles.contains(assignment.key) else { return "\(assignment.key) = \(assignment.value)" }
            #expect(assignment.value.hasPrefix("/"), "\(assignment.line): an example path is absolute")
            return "\(assignment.key) = \(readable)"
        }
        var configuration = DaemonConfiguration(environment: [:])
        try configuration.apply(fileText: lines.joined(separator: "\n"), path: "livelocd.conf (uncommented)")
        #expect(configuration.destinationSettings["webhook.url"] != nil)
        #expect(configuration.destinationSettings["mqtt.url"] != nil)
    }

    /// livelocd.conf(5) describes every key (each as a tagged paragraph `.TP` / `.B key`).
    @Test func theManualPageDescribesEveryKey() throws {
        let page = try String(contentsOf: Paths.packageRoot.appendingPathComponent("man/livelocd.conf.5"), encoding: .utf8)
        let described = Set(page.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix(".B ") ? String(line.dropFirst(3)).replacingOccurrences(of: "\\&", with: "") : nil
        })
        let missing = Set(Self.knownKeys.map(\.key)).subtracting(described).sorted()
        #expect(missing.isEmpty, "keys livelocd.conf(5) does not describe: \(missing)")
    }

    /// The file as shipped is the one the settings tables make (LIVELOCD_REGENERATE=1 rewrites it).
    @Test func theFileIsWrittenFromTheSettingsTables() throws {
        let made = ConfigurationDocuments.exampleConfiguration(DaemonConfiguration(environment: [:]).tables)
        try GeneratedDocument.check(Self.file, made)
    }

    /// The README's key tables are the ones the settings tables make: one block for livelocd's own
    /// keys and one per destination kind, a kind without one given a section of its own
    /// (LIVELOCD_REGENERATE=1 rewrites them).
    @Test func theREADMEsKeyTablesAreWrittenFromTheSettingsTables() throws {
        let readme = Paths.packageRoot.appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let configuration = DaemonConfiguration(environment: [:])
        try GeneratedDocument.check(readme, try ConfigurationDocuments.readme(text, ownTables: DaemonConfiguration.ownTables,
                                                                              kinds: configuration.kinds))
    }

    /// debian/control's description names every destination kind, in the sentence the kinds make
    /// (LIVELOCD_REGENERATE=1 rewrites it).
    @Test func thePackageDescriptionNamesEveryDestinationKind() throws {
        let control = Paths.packageRoot.appendingPathComponent("debian/control")
        let text = try String(contentsOf: control, encoding: .utf8)
        let kinds = DaemonConfiguration(environment: [:]).kinds
        let made = try ConfigurationDocuments.packageControl(text, kinds: kinds)
        try GeneratedDocument.check(control, made)
        let description = made.replacingOccurrences(of: "\n ", with: " ")
        for kind in kinds { #expect(description.contains(kind.table.title), "debian/control does not name \(kind.table.title)") }
    }

    /// The key sections of livelocd.conf(5) are the ones the settings tables make: one section per
    /// table, under its own title (LIVELOCD_REGENERATE=1 rewrites them).
    @Test func theManualPagesKeySectionsAreWrittenFromTheSettingsTables() throws {
        let page = Paths.packageRoot.appendingPathComponent("man/livelocd.conf.5")
        let text = try String(contentsOf: page, encoding: .utf8)
        try GeneratedDocument.check(page, try ConfigurationDocuments.manualPage(text, tables: DaemonConfiguration(environment: [:]).tables))
    }
}

/// A checked-in file that is made from the code: equal, or rewritten when LIVELOCD_REGENERATE=1.
enum GeneratedDocument {
    static func check(_ file: URL, _ made: String) throws {
        let shipped = try String(contentsOf: file, encoding: .utf8)
        if shipped != made, ProcessInfo.processInfo.environment["LIVELOCD_REGENERATE"] == "1" {
            try made.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let firstDifference = zip(shipped.split(separator: "\n", omittingEmptySubsequences: false),
                                  made.split(separator: "\n", omittingEmptySubsequences: false))
            .enumerated().first { $0.element.0 != $0.element.1 }
        #expect(shipped == made, """
            \(file.lastPathComponent) differs from what the settings tables make (at line \((firstDifference?.offset ?? 0) + 1): \
            '\(firstDifference?.element.0 ?? "")' vs '\(firstDifference?.element.1 ?? "")'); \
            make docs (LIVELOCD_REGENERATE=1 swift test --filter PackagedConfigurationTests) rewrites it
            """)
    }
}
