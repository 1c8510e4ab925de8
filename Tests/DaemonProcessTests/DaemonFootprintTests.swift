import Foundation
import Testing
import TestSupport

/// What keeps livelocd's resident memory within 3x gpsd's (bench/daemon-footprint.sh): it maps no
/// Foundation and no libcrypto of its own, libcurl (with its ~30 libraries) only for an https://
/// destination (http:// uses the built-in HTTP/1.1 client), libmosquitto (with OpenSSL) only for an
/// MQTT destination, and no NSS module when its control group is in /etc/group.
@Suite struct DaemonFootprintTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    /// The shared objects mapped into the running process, by file name.
    private func mappedLibraries(of pid: Int32) throws -> Set<String> {
        try #require(mappedFileNames(ofProcess: pid))
    }

    /// SIGTERM once the daemon answers a status request (its service group runs), and its exit
    /// status: the maps are read from a daemon that is up, and it is stopped the way systemd does.
    private func terminate(_ daemon: DaemonProcess, _ harness: DaemonHarness) async throws -> Int32 {
        let replies = try await harness.exchange(Array("{\"v\":1,\"op\":\"status\"}\n".utf8))
        try #require(replies.count == 1, "no status answer: \(replies)")
        daemon.send(SIGTERM)
        return await daemon.waitForExit()
    }

    @Test func aDaemonWithoutDestinationsMapsNoFoundationLibcryptoLibcurlNorLibmosquitto() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let libraries = try mappedLibraries(of: daemon.pid)
        #expect(try await terminate(daemon, harness) == 0)
        #expect(libraries.contains { $0.hasPrefix("libc.so") }, "the maps were read: \(libraries.sorted())")
        #expect(!libraries.contains { $0.contains("Foundation") }, "\(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("libcurl") }, "\(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("libcrypto") || $0.hasPrefix("libssl") }, "\(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("libmosquitto") }, "\(libraries.sorted())")
    }

    @Test func aControlGroupFoundInEtcGroupLoadsNoNSSModuleAndOneItLacksDoes() async throws {
        let etcGroup = try String(contentsOfFile: "/etc/group", encoding: .utf8)
        let present = try #require(etcGroup.split(separator: "\n").first.flatMap { $0.split(separator: ":").first }.map(String.init))
        let absent = "livelocd-test-absent-\(getpid())"
        try #require(!etcGroup.contains("\n\(absent):") && !etcGroup.hasPrefix("\(absent):"))
        var mapped: [String: Set<String>] = [:]
        for group in [present, absent] {
            let harness = try DaemonHarness()
            let daemon = try await harness.launch(log: Self.drive, extra: ["--control.group", group])
            mapped[group] = try mappedLibraries(of: daemon.pid)
            #expect(try await terminate(daemon, harness) == 0)
        }
        let withPresent = try #require(mapped[present]), withAbsent = try #require(mapped[absent])
        #expect(withPresent.contains { $0.hasPrefix("libc.so") }, "the maps were read: \(withPresent.sorted())")
        #expect(!withPresent.contains { $0.hasPrefix("libnss_") }, "group '\(present)' from /etc/group: \(withPresent.sorted())")
        // The converse shows that this test can see an NSS module, where nsswitch.conf names one
        // beyond glibc's built-in `files` for groups (Debian: `group: files systemd`).
        let nsswitch = (try? String(contentsOfFile: "/etc/nsswitch.conf", encoding: .utf8)) ?? ""
        let groupLine = nsswitch.split(separator: "\n").first { $0.hasPrefix("group:") } ?? ""
        if let module = groupLine.split(separator: " ").dropFirst().first(where: { $0 != "files" && !$0.hasPrefix("[") }),
           FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libnss_\(module).so.2") {
            #expect(withAbsent.contains("libnss_\(module).so.2"), "group '\(absent)', not in /etc/group: \(withAbsent.sorted())")
        }
    }

    @Test func anHTTPWebhookMapsNoLibcurlAndAnHTTPSWebhookLoadsItAtStartup() async throws {
        var mapped: [String: Set<String>] = [:]
        for scheme in ["http", "https"] {
            let harness = try DaemonHarness()
            let secretFile = try harness.webhookSecretFile()
            let port = try GPSFake.freeLoopbackPort()
            let daemon = try await harness.launch(log: Self.drive, extra: [
                "--webhook.url", "\(scheme)://127.0.0.1:\(port)/hook", "--webhook.secret_file", secretFile.path])
            mapped[scheme] = try mappedLibraries(of: daemon.pid)
            #expect(try await terminate(daemon, harness) == 0)
        }
        // http:// goes through the built-in HTTP/1.1 client: neither libcurl nor a TLS library.
        let http = try #require(mapped["http"])
        #expect(http.contains { $0.hasPrefix("libc.so") }, "the maps were read: \(http.sorted())")
        #expect(!http.contains { $0.hasPrefix("libcurl") }, "\(http.sorted())")
        #expect(!http.contains { $0.hasPrefix("libcrypto") || $0.hasPrefix("libssl") || $0.hasPrefix("libgnutls") }, "\(http.sorted())")
        // https:// needs libcurl, loaded when the webhook is set up, so that a missing one stops the start.
        let https = try #require(mapped["https"])
        #expect(https.contains { $0.hasPrefix("libcurl.so") }, "\(https.sorted())")
    }
}
