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

    @Test func anOptionIsRepeatableExactlyWhenItsKeyIs() {
        for named in Self.named {
            #expect((ShareCommand.options[named.option] == .repeatedValue) == named.repeatable, "\(named.option) for \(named.key)")
        }
    }
}
