import ConfigurationDocuments
import Daemon
import Delivery
import DestinationKinds
import Foundation
import Journal
import LiveLocation
import Locking
import Pipeline
import Settings
import Testing
import TestSupport

/// A destination kind added the way the README's "Writing a destination" says: a description (its
/// settings table and a factory) and one line in the list of kinds. Nothing else is touched, and
/// its keys are taken, checked, documented and built: the documents checked in (the example
/// configuration, the README, livelocd.conf(5)) are made again from the tables by `make docs`, a
/// section of its own added to the README, and `liveloc share`'s synopsis lists its options.
@Suite struct NewDestinationKindTests {
    /// What the fake kind saw: how often its secret file was read, and the events it was sent.
    final class Observed: Sendable {
        let secretReads = Locked(0)
        let events = Locked<[ShareEvent]>([])
    }

    /// A destination that takes every event at once.
    struct RecordingDestination: Destination {
        let observed: Observed
        let url: String
        var name: String { "fake" }
        var identity: String { "fake \(url)" }
        var queue: QueuePolicy { QueuePolicy() }
        func send(_ event: QueuedEvent) -> DeliveryReceipt {
            observed.events.withLock { $0.append(event.event) }
            return DeliveryReceipt(.delivered())
        }
    }

    /// The new kind: `fake.url` (`--fake-url`), and a token file read when it is configured.
    static func fakeKind(_ observed: Observed) -> DestinationKind {
        DestinationKind(
            name: "fake", title: "Fake", about: "A destination only this test knows.",
            settings: [
                DestinationSetting(SettingDescription("fake.url", "URL", example: "fake://receiver", "send every event here",
                                                      shareOption: "--fake-url")) { value throws(SettingError) in
                    guard value.hasPrefix("fake://") else { throw .badValue(key: "fake.url", value: value, expected: "a fake:// URL") }
                },
                DestinationSetting(SettingDescription("fake.token_file", "PATH", example: "/etc/livelocd/fake-token",
                                                      "the token", namesSecretFile: true)) { _ throws(SettingError) in },
            ],
            configure: { values, _ throws(SettingError) in
                guard let url = values["fake.url"] else { return nil }
                guard let file = values["fake.token_file"] else { throw .missingKey("fake.token_file", because: "fake.url") }
                guard (try? String(contentsOfFile: file, encoding: .utf8)) != nil else {
                    throw .badValue(key: "fake.token_file", value: file, expected: "a readable file")
                }
                observed.secretReads.withLock { $0 += 1 }
                return ConfiguredDestination(kind: "fake") { _ in RecordingDestination(observed: observed, url: url) }
            })
    }

    @Test func itsKeysAreTakenCheckedAndInEveryDocumentTheTablesMake() throws {
        let observed = Observed()
        var configuration = DaemonConfiguration(environment: [:], kinds: DestinationKinds.all + [Self.fakeKind(observed)])
        try configuration.apply(fileText: "fake.url = fake://receiver\n", path: "x.conf")
        #expect(configuration.destinationSettings["fake.url"] == "fake://receiver")
        #expect(throws: ConfigurationError.badValue(key: "fake.url", value: "http://x", expected: "a fake:// URL",
                                                    at: .init(file: "x.conf", line: 2))) {
            try configuration.apply(fileText: "\nfake.url = http://x\n", path: "x.conf")
        }
        #expect(throws: ConfigurationError.unknownKey(key: "fake.hots", at: nil)) { try configuration.set("fake.hots", to: "x") }
        #expect(configuration.settings.map(\.key).suffix(2) == ["fake.url", "fake.token_file"])
        let example = ConfigurationDocuments.exampleConfiguration(configuration.tables)
        #expect(example.contains("## Fake\n# A destination only this test knows.\n"))
        #expect(example.contains("# fake.url = fake://receiver   # example"))
        let blocks = ConfigurationDocuments.readmeBlocks(ownTables: DaemonConfiguration.ownTables, kinds: configuration.kinds)
        #expect(blocks.last?.name == "fake")
        #expect(blocks.last?.text.contains("| `fake.url` (`--fake-url`) | `URL`: send every event here | none |") == true)
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let newReadme = try ConfigurationDocuments.readme(readme, ownTables: DaemonConfiguration.ownTables, kinds: configuration.kinds)
        #expect(newReadme.contains("""
            ### Fake

            A destination only this test knows.

            <!-- BEGIN KEYS fake -->
            | key (`liveloc share` option) | values | default |
            | --- | --- | --- |
            | `fake.url` (`--fake-url`) | `URL`: send every event here | none |
            """))
        let section = try #require(newReadme.range(of: "### Fake"))
        let marker = try #require(newReadme.range(of: ConfigurationDocuments.readmeNewKindsMarker))
        #expect(section.lowerBound < marker.lowerBound, "the new section is added where the marker is")
        #expect(try ConfigurationDocuments.readme(newReadme, ownTables: DaemonConfiguration.ownTables, kinds: configuration.kinds)
                == newReadme, "made again, the README does not change")
        let page = try String(contentsOf: Paths.packageRoot.appendingPathComponent("man/livelocd.conf.5"), encoding: .utf8)
        #expect(try ConfigurationDocuments.manualPage(page, tables: configuration.tables)
            .contains(".SH FAKE\n.TP\n.B fake.url\n\\fIURL\\fP: send every event here.\n.TP\n.B fake.token_file\n"))
        let control = try String(contentsOf: Paths.packageRoot.appendingPathComponent("debian/control"), encoding: .utf8)
        let newControl = try ConfigurationDocuments.packageControl(control, kinds: configuration.kinds)
        #expect(newControl.replacingOccurrences(of: "\n ", with: " ").contains("Share link and Fake."),
                "the package's description names the new kind last")
        #expect(newControl.split(separator: "\n").filter { $0.hasPrefix(" ") }.allSatisfy { $0.count <= 80 },
                "its description's lines stay 80 columns wide at most")
        #expect(Self.fakeKind(observed).shareSynopsis == ["[--fake-url URL]"])
        #expect(Self.fakeKind(observed).mainKey == "fake.url")
        // A key of the kind set without its main key names the main key (DestinationKind.configure).
        var stray = DaemonConfiguration(environment: [:], kinds: DestinationKinds.all + [Self.fakeKind(observed)])
        try stray.set("fake.token_file", to: "/etc/livelocd/fake-token")
        #expect(throws: ConfigurationError.missingKey(key: "fake.url", because: "fake.token_file")) {
            try stray.configuredDestinations(credentialsDirectory: nil)
        }
        // Without it, the same key is unknown: the list of kinds is what makes it known.
        var without = DaemonConfiguration(environment: [:])
        #expect(throws: ConfigurationError.unknownKey(key: "fake.url", at: nil)) { try without.set("fake.url", to: "fake://receiver") }
    }

    @Test func itIsBuiltFromItsSettingsReadingItsSecretOnceAndGetsEveryEvent() async throws {
        let directory = try Paths.temporaryDirectory("fake-kind")
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = directory.appendingPathComponent("token").path
        try "secret\n".write(toFile: token, atomically: true, encoding: .utf8)
        let observed = Observed()
        var configuration = DaemonConfiguration(environment: [:], kinds: DestinationKinds.all + [Self.fakeKind(observed)])
        try configuration.set("fake.url", to: "fake://receiver")
        #expect(throws: ConfigurationError.missingKey(key: "fake.token_file", because: "fake.url")) {
            try configuration.configuredDestinations(credentialsDirectory: nil)
        }
        try configuration.set("fake.token_file", to: token)
        let configured = try configuration.configuredDestinations(credentialsDirectory: nil)
        #expect(configured.map(\.kind) == ["fake"])
        #expect(observed.secretReads.withLock { $0 } == 1)

        let destination = try #require(try configured.first?.make(DestinationContext(log: .silent)))
        #expect(observed.secretReads.withLock { $0 } == 1, "building reads no file again")
        let journal = try Journal(directory: directory.appendingPathComponent("state").path,
                                  destinations: [destination.identity: destination.queue], log: .silent)
        let runner = DestinationRunner(destination: destination, journal: journal, log: .silent)
        let task = Task { try await runner.run() }
        let id = ShareID(rawValue: "fake-share")
        let events = (1...3).map { seq in
            ShareEvent.updated(shareID: id, seq: seq, location: LiveLocation(
                latitude: 48.1, longitude: 11.5, lastUpdateAt: Timestamp(millisecondsSince1970: 1_796_000_000_000 + Int64(seq) * 1000),
                startedAt: Timestamp(millisecondsSince1970: 1_796_000_000_000),
                expiresAt: Timestamp(millisecondsSince1970: 1_796_000_900_000), isActive: true))
        }
        try await withCleanup {
            try await journal.commit(ShareBatch(events: events, share: nil, through: 1))
            runner.wake()
            for _ in 0..<250 where observed.events.withLock({ $0.count }) < events.count { try await Task.sleep(for: .milliseconds(20)) }
        } cleanup: {
            task.cancel()
            _ = try? await task.value
            await journal.close()
        }
        #expect(observed.events.withLock { $0 } == events)
    }
}
