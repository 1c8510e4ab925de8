import Foundation
import Testing
import TestSupport

/// Every example in the manual pages runs as written: livelocd.conf(5)'s configuration starts the
/// daemon and delivers to its webhook, liveloc(1)'s commands work against a running daemon. The
/// package's paths are mapped to the repository's (the example drive is Fixtures/ here) and the
/// example host to a receiver on loopback; nothing else of the text is changed.
@Suite(.serialized) struct ManualExamplesTests {
    /// The `.nf` … `.fi` blocks of the EXAMPLES section of `page` (man/), unescaped.
    static func examples(of page: String) throws -> [[String]] {
        let text = try String(contentsOf: Paths.packageRoot.appendingPathComponent("man/" + page), encoding: .utf8)
        let section = try #require(text.range(of: ".SH EXAMPLES\n"), "\(page) has no EXAMPLES")
        let rest = text[section.upperBound...]
        let body = rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)]
        var blocks: [[String]] = [], current: [String]? = nil
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == ".nf" { current = [] } else if line == ".fi" { blocks.append(current ?? []); current = nil }
            else if current != nil { current!.append(line.replacingOccurrences(of: "\\-", with: "-")) }
        }
        return blocks
    }

    @Test func theConfigurationPagesExampleStartsTheDaemonAndDeliversToItsWebhook() async throws {
        let blocks = try Self.examples(of: "livelocd.conf.5")
        #expect(blocks.count == 1)
        let harness = try DaemonHarness()
        let credentials = harness.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        let secret = credentials.appendingPathComponent("webhook-secret")
        try writeSecretFile(DaemonHarness.webhookKey, to: secret)
        let receiver = try await WebhookReceiver.start(secretFile: secret, records: harness.directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }
        let fixtures = Paths.fixture("").path
        let config = try #require(blocks.first).map { line in
            line.replacingOccurrences(of: "/usr/share/doc/livelocd/examples/", with: fixtures.hasSuffix("/") ? fixtures : fixtures + "/")
                .replacingOccurrences(of: "https://backend.example/livelocd/events", with: receiver.url)
        }.joined(separator: "\n") + "\n"
        let path = harness.directory.appendingPathComponent("example.conf").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(Paths.executable("livelocd"), [
            "--config", path, "--state_directory", harness.stateDirectory, "--control.socket", harness.socketPath],
            environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        #expect(try await harness.liveloc(["start", "--duration", "15m"]).status == 0)
        #expect(await eventually(timeout: .seconds(20)) { receiver.records().contains { $0.acknowledged && $0.signatureValid } })
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func theCommandLinePagesExamplesRunAgainstTheDaemon() async throws {
        let blocks = try Self.examples(of: "liveloc.1")
        let lines = blocks.flatMap { $0 }
        #expect(lines.count >= 4)
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Paths.fixture("drive-multignss-1hz.nmea").path)
        for line in lines {
            var words = line.split(separator: " ").map(String.init)
            #expect(words.first == "liveloc", "\(line)")
            words.removeFirst()
            var output: String?
            if let redirect = words.firstIndex(of: ">") {
                output = words[redirect + 1]
                words.removeSubrange(redirect...)
            }
            let result: ProcessResult
            if words.contains("--watch") {
                // Redraws until stopped: its first blocks, then SIGTERM.
                let watch = try await DaemonProcess(Paths.executable("liveloc"), words + ["--socket", harness.socketPath])
                try await watch.waitForLine(.stdout) { $0.contains("Live location") }
                watch.send(SIGTERM)
                _ = await watch.waitForExit()
                continue
            }
            result = try await harness.liveloc(words)
            #expect(result.status == 0, "\(line): \(result.stderr)")
            if output != nil { #expect(result.stdout.contains("<gpx"), "\(line)") }
            // A share has updates for the track before the next command.
            if words.first == "start" {
                #expect(await eventually(timeout: .seconds(20)) {
                    FileManager.default.fileExists(atPath: harness.journalFile)
                })
                try await Task.sleep(for: .seconds(2))
            }
        }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
