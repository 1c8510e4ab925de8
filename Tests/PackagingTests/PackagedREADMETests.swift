import Foundation
import Testing
import TestSupport

/// The README the package installs in /usr/share/doc/livelocd (scripts/packaged-readme, run by
/// debian/rules): the user's part of README.md only, and every example file it or the packaged
/// configuration names is one the package ships. (scripts/deb-check reads it installed.)
@Suite struct PackagedREADMETests {
    static let script = Paths.packageRoot.appendingPathComponent("scripts/packaged-readme")
    static let examplesDirectory = "/usr/share/doc/livelocd/examples/"

    static func packagedREADME() async throws -> String {
        let result = try await runProcess(script, [Paths.packageRoot.appendingPathComponent("README.md").path],
                                          timeout: .seconds(10))
        try #require(result.status == 0, "scripts/packaged-readme: \(result.stderr)")
        return result.stdout
    }

    /// What a device does not have: a clone's make targets, build directory, scripts and tests.
    @Test(arguments: ["make ", ".build/", "scripts/", "Fixtures/", "swift test", "swift build", ".ci/",
                      "BEGIN CLONE", "END CLONE", "BEGIN PACKAGE", "END PACKAGE"])
    func theInstalledREADMEHasNothingOfAClone(word: String) async throws {
        let text = try await Self.packagedREADME()
        let lines = text.split(separator: "\n").filter { $0.contains(word) }
        #expect(lines.isEmpty, "the packaged README has '\(word)': \(lines)")
    }

    /// A reader of the installed README replays the example drive the package ships.
    @Test func theInstalledREADMEsFirstShareReplaysTheShippedDrive() async throws {
        let text = try await Self.packagedREADME()
        #expect(text.contains("liveloc share --duration 15m --replay \(Self.examplesDirectory)drive-multignss-1hz.nmea"))
    }

    /// The files debian/livelocd.examples installs in /usr/share/doc/livelocd/examples.
    static func shippedExamples() throws -> Set<String> {
        let list = try String(contentsOf: Paths.packageRoot.appendingPathComponent("debian/livelocd.examples"), encoding: .utf8)
        return Set(list.split(separator: "\n").map { String($0.split(separator: "/").last ?? "") })
    }

    /// Every path under examples/ that a user reads (the installed README, livelocd.conf) exists.
    @Test func everyExampleFileNamedIsShipped() async throws {
        let configuration = try String(contentsOf: Paths.packageRoot.appendingPathComponent("systemd/livelocd.conf.example"),
                                       encoding: .utf8)
        let shipped = try Self.shippedExamples()
        for (name, text) in [("README", try await Self.packagedREADME()), ("livelocd.conf", configuration)] {
            let named = Self.examplePaths(in: text)
            #expect(!named.isEmpty, "\(name) names no example file")
            #expect(named.subtracting(shipped).isEmpty,
                    "\(name) names examples the package does not ship: \(named.subtracting(shipped).sorted())")
        }
        // livelocd.conf's replay.file example is the drive.
        #expect(configuration.contains("# replay.file = \(Self.examplesDirectory)drive-multignss-1hz.nmea"))
    }

    static func examplePaths(in text: String) -> Set<String> {
        var names = Set<String>()
        var rest = text[...]
        while let found = rest.range(of: examplesDirectory) {
            let name = rest[found.upperBound...].prefix { !" `)'\"\n,;".contains($0) }
            if !name.isEmpty { names.insert(String(name)) }
            rest = rest[found.upperBound...]
        }
        return names
    }

    /// A marker out of place stops the package's build, naming its line.
    @Test(arguments: [
        ("a\n<!-- BEGIN CLONE -->\nmake run\n", "2: clone part not closed"),
        ("a\n<!-- END CLONE -->\n", "2: END CLONE without BEGIN CLONE"),
        ("<!-- BEGIN CLONE -->\n<!-- BEGIN PACKAGE\nEND PACKAGE -->\n<!-- END CLONE -->\n", "2: BEGIN PACKAGE inside clone"),
        ("text <!-- BEGIN CLONE -->\n", "1: a marker must be a line of its own"),
    ])
    func aMisplacedMarkerFails(readme: String, message: String) async throws {
        let directory = try Paths.temporaryDirectory("packaged-readme")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("README.md")
        try readme.write(to: file, atomically: true, encoding: .utf8)
        let result = try await runProcess(Self.script, [file.path], timeout: .seconds(10))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("packaged-readme: \(file.path):\(message)"), "stderr: \(result.stderr)")
    }
}
