import ArgumentParsing
import Daemon
@testable import liveloc
import Testing

/// `liveloc share`'s options and the settings tables: every option a table names (a destination's,
/// made from its kind; the source's, the throttle's, privacy's, the journal's) is one the command
/// takes, as often as the key may be given, and its `--help` shows it.
@Suite struct ShareOptionsFromTheTablesTests {
    static let named = DaemonConfiguration(environment: [:]).settings.compactMap { setting in
        setting.shareOption.map { (option: $0, key: setting.key, repeatable: setting.isRepeatable) }
    }

    @Test func everyOptionATableNamesIsTakenAndShownInTheHelp() {
        #expect(Self.named.count >= 30, "\(Self.named.map(\.option))")
        let missing = Self.named.filter { ShareCommand.options[$0.option] == nil }.map(\.option)
        #expect(missing.isEmpty, "options the settings tables name that liveloc share does not take: \(missing)")
        let undocumented = Self.named.filter { !ShareCommand.help.contains("  \($0.option) ") }.map(\.option)
        #expect(undocumented.isEmpty, "options liveloc share --help does not show: \(undocumented)")
    }

    /// The usage lines name every destination option with its value (`[--traccar-id ID]`), each
    /// kind's options in one bracket opened by its main option, their lines no wider than 100 columns.
    @Test func theUsageNamesEveryDestinationOptionFromTheKinds() throws {
        let usage = try #require(ShareCommand.help.split(separator: "\n\n").first)
        let unnamed = ShareDestinationOptions.destinationOptions.filter { option in
            !usage.contains("\(option.name) \(option.setting.value)")
        }.map(\.name)
        #expect(unnamed.isEmpty, "destination options the usage lines do not name: \(unnamed)")
        #expect(usage.contains("[--webhook URL [--webhook-secret-file PATH]"))
        let destinationLines = usage.split(separator: "\n").filter { line in
            ShareDestinationOptions.destinationOptions.contains { line.contains("[\($0.name) ") }
        }
        #expect(!destinationLines.isEmpty && destinationLines.allSatisfy { $0.count <= 100 })
    }

    @Test func anOptionIsRepeatableExactlyWhenItsKeyIs() {
        for named in Self.named {
            #expect((ShareCommand.options[named.option] == .repeatedValue) == named.repeatable, "\(named.option) for \(named.key)")
        }
    }
}
