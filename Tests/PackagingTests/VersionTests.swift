import ArgumentParsing
import Foundation
import Testing
import TestSupport

/// `--version`: both programs print the package version of debian/changelog and the commit they
/// were built from.
@Suite struct VersionTests {
    @Test func theVersionIsTheFirstChangelogEntrys() {
        #expect(BuildInfo.packageVersion(changelogHead: "livelocd (0.9.0-1) bookworm; urgency=medium\n\n  * x") == "0.9.0-1")
        #expect(BuildInfo.packageVersion(changelogHead: "livelocd (1:2.0~rc1+git3.abc-2) unstable; urgency=low") == "1:2.0~rc1+git3.abc-2")
        #expect(BuildInfo.packageVersion(changelogHead: "") == nil)
        #expect(BuildInfo.packageVersion(changelogHead: "livelocd 0.9.0-1 bookworm") == nil)
        #expect(BuildInfo.packageVersion(changelogHead: "livelocd (0.9 0) bookworm") == nil)
        #expect(BuildInfo.packageVersion(changelogHead: "livelocd (v1) bookworm") == nil)
    }

    @Test func theCommitIsAHashWithAnOptionalDirtyMark() {
        #expect(BuildInfo.commitName(fileText: "45a89c8a1b2c\n") == "45a89c8a1b2c")
        #expect(BuildInfo.commitName(fileText: "45a89c8a1b2c+dirty\n") == "45a89c8a1b2c+dirty")
        #expect(BuildInfo.commitName(fileText: "") == nil)
        #expect(BuildInfo.commitName(fileText: "HEAD\n") == nil)
        #expect(BuildInfo.commitName(fileText: "45a8\n") == nil)
    }

    /// The changelog as dpkg reads it (dpkg-parsechangelog, the parser dpkg-buildpackage uses).
    private func changelogVersion() async throws -> String {
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/dpkg-parsechangelog"),
                                          ["-l", Paths.packageRoot.appendingPathComponent("debian/changelog").path, "-SVersion"])
        try #require(result.status == 0, "dpkg-parsechangelog: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the build took in as its commit: the Makefile's .build/build-commit, else none.
    private func builtCommit() -> String {
        let file = Paths.packageRoot.appendingPathComponent(".build/build-commit")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return "unknown commit" }
        return BuildInfo.commitName(fileText: text) ?? "unknown commit"
    }

    @Test(arguments: ["livelocd", "liveloc"])
    func bothProgramsPrintThePackageVersionAndTheCommit(program: String) async throws {
        let version = try await changelogVersion()
        let result = try await runProcess(Paths.executable(program), ["--version"], timeout: .seconds(10))
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == "\(program) \(version) (commit \(builtCommit()))\n")
    }
}
