import Foundation
import Testing
import TestSupport

/// What keeps livelocd's resident memory within 3x gpsd's (bench/daemon-footprint.sh): it maps no
/// Foundation at all, and libcurl (with its ~30 libraries) only when a webhook sink needs it.
@Suite struct DaemonFootprintTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    /// The shared objects mapped into the running process, by file name.
    private func mappedLibraries(of pid: Int32) throws -> Set<String> {
        // Read to the end: /proc files report size 0, and a read sized by that stops after one page.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.flatMap { path in
                path.hasPrefix("/") ? String(path.split(separator: "/").last!) : nil
            }
        })
    }

    @Test func aDaemonWithoutAWebhookMapsNeitherFoundationNorLibcurl() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let libraries = try mappedLibraries(of: daemon.pid)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        #expect(libraries.contains { $0.hasPrefix("libc.so") }, "the maps were read: \(libraries.sorted())")
        #expect(!libraries.contains { $0.contains("Foundation") }, "\(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("libcurl") }, "\(libraries.sorted())")
    }

    @Test func aDaemonWithAWebhookLoadsLibcurlAtStartup() async throws {
        let harness = try DaemonHarness()
        let secretFile = harness.directory.appendingPathComponent("webhook-secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secretFile)
        let port = try GPSFake.freeLoopbackPort()
        let daemon = try await harness.launch(log: Self.drive, extra: [
            "--webhook.url", "http://127.0.0.1:\(port)/hook", "--webhook.secret_file", secretFile.path])
        let libraries = try mappedLibraries(of: daemon.pid)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        #expect(libraries.contains { $0.hasPrefix("libcurl.so") }, "\(libraries.sorted())")
    }
}
