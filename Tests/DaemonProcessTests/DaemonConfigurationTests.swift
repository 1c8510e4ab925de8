import Daemon
import DestinationKinds
import Foundation
import Testing
import TestSupport

@Suite struct DaemonConfigurationTests {
    @Test func defaultsComeFromSystemdDirectories() {
        let configuration = DaemonConfiguration(environment: ["STATE_DIRECTORY": "/var/lib/x", "RUNTIME_DIRECTORY": "/run/x"])
        #expect(configuration.stateDirectory == "/var/lib/x")
        #expect(configuration.controlSocket == "/run/x/control.sock")
        #expect(DaemonConfiguration(environment: [:]).controlSocket == "/run/livelocd/control.sock")
        #expect(DaemonConfiguration(environment: [:]).stateDirectory == "/var/lib/livelocd")
    }

    @Test func fileLinesSetKeysAndCommentsAreIgnored() throws {
        var configuration = DaemonConfiguration(environment: [:])
        try configuration.apply(fileText: """
            # a comment
            source = replay   # trailing comment
            replay.file = /tmp/a#b.nmea
            replay.speed = 60
            throttle.min_interval = 500ms
            throttle.min_distance = 25
            throttle.min_angle = 30
            control.status_public = yes
            """, path: "test.conf")
        #expect(configuration.source.kind == .replay)
        #expect(configuration.source.replayFile == "/tmp/a#b.nmea")
        #expect(configuration.source.replaySpeed == 60)
        #expect(configuration.throttle.minInterval == .milliseconds(500))
        #expect(configuration.throttle.minDistanceMeters == 25)
        #expect(configuration.throttle.minAngleDegrees == 30)
        #expect(configuration.statusPublic)
    }

    @Test func minAngleIsDegreesBelow180OrOff() throws {
        var configuration = DaemonConfiguration(environment: [:])
        for bad in ["180", "-1", "nan", "north"] {
            #expect(throws: ConfigurationError.self) { try configuration.apply(fileText: "throttle.min_angle = \(bad)\n", path: "x.conf") }
        }
        try configuration.apply(fileText: "throttle.min_angle = 12.5\n", path: "x.conf")
        #expect(configuration.throttle.minAngleDegrees == 12.5)
        try configuration.apply(fileText: "throttle.min_angle = off\n", path: "x.conf")
        #expect(configuration.throttle.minAngleDegrees == nil)
    }

    @Test func unknownKeyNamesTheKeyAndLine() {
        var configuration = DaemonConfiguration(environment: [:])
        #expect(throws: ConfigurationError.unknownKey(key: "gpsd.hots", at: .init(file: "x.conf", line: 2))) {
            try configuration.apply(fileText: "source = gpsd\ngpsd.hots = a\n", path: "x.conf")
        }
    }

    @Test func badValueNamesTheKeyAndLine() throws {
        var configuration = DaemonConfiguration(environment: [:])
        let error = #expect(throws: ConfigurationError.self) {
            try configuration.apply(fileText: "\n\ngpsd.port = 99999\n", path: "x.conf")
        }
        #expect(error?.description == "x.conf:3: invalid value '99999' for key 'gpsd.port': expected a port number 1-65535")
    }

    @Test func serialSourceTakesItsDeviceAndBaudAndNeedsTheDevice() throws {
        var configuration = DaemonConfiguration(environment: [:])
        try configuration.apply(fileText: "source = serial\nserial.device = /dev/serial/by-id/usb-x\n", path: "x.conf")
        #expect(configuration.source.kind == .serial)
        #expect(configuration.source.serialDevice == "/dev/serial/by-id/usb-x")
        #expect(configuration.source.serialBaud == .automatic)
        try configuration.set("serial.baud", to: "38400")
        #expect(configuration.source.serialBaud == .fixed(38400))
        let error = #expect(throws: ConfigurationError.self) {
            try configuration.apply(fileText: "serial.baud = 1200\n", path: "x.conf")
        }
        #expect(error?.description == "x.conf:1: invalid value '1200' for key 'serial.baud': expected auto, 4800, 9600, 19200, 38400, 57600 or 115200")
        var missing = DaemonConfiguration(environment: [:])
        missing.source.kind = .serial
        #expect(throws: ConfigurationError.missingKey(key: "serial.device", because: "source = serial")) {
            try missing.validate()
        }
    }

    /// Every destination kind's `ca_file` key.
    static var caFileKeys: [String] {
        DestinationKinds.all.flatMap(\.table.settings).map(\.key).filter { $0.hasSuffix(".ca_file") }
    }

    /// Every destination's `ca_file` (the settings tables' one check): a file that is missing or
    /// a directory is refused where it is set, naming the file, line and key; a readable one is taken.
    @Test func aCAFileThatCannotBeReadNamesTheKeyAndLine() throws {
        let directory = try Paths.temporaryDirectory("ca-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let readable = directory.appendingPathComponent("ca.pem").path
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: readable, atomically: true, encoding: .utf8)
        let missing = directory.appendingPathComponent("missing.pem").path
        let keys = Self.caFileKeys
        #expect(!keys.isEmpty)
        for key in keys {
            var configuration = DaemonConfiguration(environment: [:])
            try configuration.apply(fileText: "\(key) = \(readable)\n", path: "x.conf")
            for (path, reason) in [(missing, "No such file or directory"), (directory.path, "Is a directory")] {
                let error = #expect(throws: ConfigurationError.self) {
                    try configuration.apply(fileText: "# TLS\n\(key) = \(path)\n", path: "x.conf")
                }
                #expect(error?.description == "x.conf:2: invalid value '\(path)' for key '\(key)': expected a readable file (\(reason))")
            }
        }
    }

    @Test func replayNeedsItsFile() {
        var configuration = DaemonConfiguration(environment: [:])
        configuration.source.kind = .replay
        #expect(throws: ConfigurationError.missingKey(key: "replay.file", because: "source = replay")) {
            try configuration.validate()
        }
    }
}

@Suite struct DaemonCommandLineTests {
    @Test func unknownKeyInConfigFileExitsWith2NamingKeyAndLine() async throws {
        let harness = try DaemonHarness()
        let config = harness.directory.appendingPathComponent("bad.conf").path
        try "# livelocd\nsource = replay\ngpsd.hots = localhost\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await runProcess(Paths.executable("livelocd"), ["--config", config])
        #expect(result.status == 2)
        #expect(result.stderr == "livelocd: \(config):3: unknown key 'gpsd.hots'\n")
    }

    /// Both programs take both spellings of an option of the same meaning (livelocd's key,
    /// liveloc share's option), and answer a typo with the nearest option.
    @Test func eachProgramTakesTheOthersSpellingAndNamesTheNearestOptionForATypo() async throws {
        let drive = Paths.fixture("drive-multignss-1hz.nmea").path
        let harness = try DaemonHarness()
        let daemon = try await DaemonProcess(Paths.executable("livelocd"), [
            "--config", harness.configPath(), "--source", "replay", "--replay", drive, "--speed", "10",
            "--state-directory", harness.stateDirectory, "--control.socket", harness.socketPath, "--log-level", "notice"])
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        #expect(daemon.lines(.stderr).allSatisfy { !$0.contains("info") })
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        #expect(FileManager.default.fileExists(atPath: harness.journalFile))

        let share = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay.file", drive, "--replay.speed", "0",
            "--state_directory", harness.directory.appendingPathComponent("share-state").path], timeout: .seconds(60))
        #expect(share.status == 0, "\(share.stderr)")
        #expect(share.stdout.contains("\"event\":\"ended\""))

        let typo = try await runProcess(Paths.executable("livelocd"), ["--replay.fil", drive])
        #expect(typo.status == 2)
        #expect(typo.stderr == "livelocd: unknown option '--replay.fil' (did you mean '--replay.file'?); run 'livelocd --help'\n")
        let shareTypo = try await runProcess(Paths.executable("liveloc"), ["share", "--duration", "15m", "--state-dirctory", "x"])
        #expect(shareTypo.status == 2)
        #expect(shareTypo.stderr.contains("unknown option '--state-dirctory' (did you mean '--state-directory'?)"), "\(shareTypo.stderr)")
    }

    @Test func badFlagValueExitsWith2NamingKey() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"), ["--config", harness.configPath(), "--replay.speed", "fast"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("'replay.speed'"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// A CA file is read when the first connection is made; one that is missing, or a directory,
    /// stops start-up instead, with one line naming the key (exit status 2).
    @Test func aCAFileThatCannotBeReadStopsStartupNamingTheKey() async throws {
        let harness = try DaemonHarness()
        let drive = Paths.fixture("drive-multignss-1hz.nmea").path
        let missing = harness.directory.appendingPathComponent("missing-ca.pem").path
        for key in DaemonConfigurationTests.caFileKeys {
            for (path, reason) in [(missing, "No such file or directory"), (harness.directory.path, "Is a directory")] {
                let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: drive, extra: ["--\(key)", path]))
                #expect(result.status == 2, "\(key) \(path)")
                #expect(result.stderr == "livelocd: --\(key): invalid value '\(path)' for key '\(key)': expected a readable file (\(reason))\n")
            }
        }
    }

    /// Readable is judged as the daemon's user: a CA file only root may read stops a daemon run as
    /// nobody, naming the key.
    @Test func aCAFileTheDaemonsUserCannotReadStopsStartupNamingTheKey() async throws {
        let harness = try DaemonHarness()
        let drive = Paths.fixture("drive-multignss-1hz.nmea").path
        let ca = harness.directory.appendingPathComponent("root-only-ca.pem").path
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: ca, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: ca)
        let result = try await runProcess(URL(fileURLWithPath: ChildSpawner.setpriv),
                                          ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.executable("livelocd").path]
                                              + harness.arguments(log: drive, extra: ["--telegram.ca_file", ca]))
        #expect(result.status == 2)
        #expect(result.stderr == "livelocd: --telegram.ca_file: invalid value '\(ca)' for key 'telegram.ca_file': expected a readable file (Permission denied)\n")
    }

    @Test func missingExplicitConfigFileExitsWith2() async throws {
        let result = try await runProcess(Paths.executable("livelocd"), ["--config", "/nonexistent/livelocd.conf"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent/livelocd.conf: No such file or directory (ENOENT)"))
    }
}
