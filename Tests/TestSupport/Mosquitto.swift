import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto broker (Debian's `mosquitto`) on free loopback ports, with its own config,
/// persistence directory and log, for tests and benches.
///
/// Listeners: plain MQTT on `port`; with `tls`, also MQTT over TLS on `tlsPort` with a server
/// certificate for 127.0.0.1 and localhost signed by a CA the test made with `openssl`
/// (`TestCertificates`). With `users`, anonymous clients are refused and the password file is made
/// with `mosquitto_passwd -U` (the passwords never go on a command line).
public final class Mosquitto: Sendable {
    public struct Options: Sendable {
        public var tls: TestCertificates?
        /// User name → password; nil allows anonymous clients.
        public var users: [String: String]?
        public var persistence = true
        /// The TLS listener presents a certificate (from the same CA) for another host name.
        public var wrongHostCertificate = false
        /// The text of an `acl_file` (mosquitto.conf(5)): who may read and write which topics.
        public var acl: String?

        public init(tls: TestCertificates? = nil, users: [String: String]? = nil, persistence: Bool = true,
                    wrongHostCertificate: Bool = false, acl: String? = nil) {
            self.acl = acl
            self.tls = tls
            self.users = users
            self.persistence = persistence
            self.wrongHostCertificate = wrongHostCertificate
        }
    }

    public let port: UInt16
    public let tlsPort: UInt16?
    public let directory: URL
    public let options: Options
    private let process: Process

    /// Whether Debian's broker and clients are installed.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
    }

    private init(port: UInt16, tlsPort: UInt16?, directory: URL, options: Options, process: Process) {
        self.port = port
        self.tlsPort = tlsPort
        self.directory = directory
        self.options = options
        self.process = process
    }

    /// `mqtt://127.0.0.1:PORT`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// `mqtts://127.0.0.1:TLSPORT`, with `tls`.
    public var tlsURL: String? { tlsPort.map { "mqtts://127.0.0.1:\($0)" } }

    /// Starts a broker and returns once it accepts connections (within `timeout`). `port`,
    /// `tlsPort` and `directory` reuse a stopped broker's, for restart tests; nil picks new ones.
    public static func start(_ options: Options = Options(), port: UInt16? = nil, tlsPort: UInt16? = nil,
                             directory: URL? = nil, timeout: Duration = .seconds(30)) async throws -> Mosquitto {
        let directory = try directory ?? Paths.temporaryDirectory("mosquitto")
        let port = try port ?? GPSFake.freeLoopbackPort()
        let tlsPort = try options.tls.map { _ in try tlsPort ?? GPSFake.freeLoopbackPort() }
        var config = """
            # written by the test (TestSupport/Mosquitto.swift)
            per_listener_settings false
            allow_anonymous \(options.users == nil)
            persistence \(options.persistence)
            persistence_location \(directory.path)/
            autosave_interval 1
            log_dest file \(directory.path)/mosquitto.log
            log_type error
            log_type warning
            log_type notice
            log_type information
            max_queued_messages 100000
            user \(String(cString: getpwuid(getuid()).pointee.pw_name))
            listener \(port) 127.0.0.1

            """
        if let users = options.users {
            let passwords = directory.appendingPathComponent("passwords")
            let text = users.map { "\($0.key):\($0.value)\n" }.joined()
            _ = FileManager.default.createFile(atPath: passwords.path, contents: Data(text.utf8),
                                           attributes: [.posixPermissions: 0o600])
            // -U hashes the plain-text file in place: no password on a command line.
            let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/mosquitto_passwd"), ["-U", passwords.path])
            guard result.status == 0 else { throw MosquittoError.setup("mosquitto_passwd -U: \(result.stderr)") }
            config += "password_file \(passwords.path)\n"
        }
        if let acl = options.acl {
            let aclFile = directory.appendingPathComponent("acl")
            try Data(acl.utf8).write(to: aclFile)
            config += "acl_file \(aclFile.path)\n"
        }
        if let tls = options.tls, let tlsPort {
            config += """
                listener \(tlsPort) 127.0.0.1
                cafile \(tls.caCertificate.path)
                certfile \(options.wrongHostCertificate ? tls.wrongHostCertificate.path : tls.serverCertificate.path)
                keyfile \(options.wrongHostCertificate ? tls.wrongHostKey.path : tls.serverKey.path)

                """
        }
        let configURL = directory.appendingPathComponent("mosquitto.conf")
        try Data(config.utf8).write(to: configURL)
        let process = Process()
        // runAsTestChild starts it with an empty signal mask: mosquitto restores the mask it
        // inherited around its waits, and SIGTERM must end it cleanly (it saves its persistence
        // file then).
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", configURL.path]
        process.standardInput = FileHandle.nullDevice
        let stderrURL = directory.appendingPathComponent("mosquitto.stderr")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stderrURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try await process.runAsTestChild()
        let broker = Mosquitto(port: port, tlsPort: tlsPort, directory: directory, options: options, process: process)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if !process.isRunning {
                throw MosquittoError.exited(status: process.terminationStatus, log: broker.log)
            }
            if GPSFake.canConnect(port: port) && (tlsPort.map { GPSFake.canConnect(port: $0) } ?? true) {
                return broker
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        await broker.stop()
        throw MosquittoError.notListening(port: port, log: broker.log)
    }

    /// The broker's log so far (and anything it printed).
    public var log: String {
        let files = ["mosquitto.log", "mosquitto.stderr"].map { directory.appendingPathComponent($0) }
        return files.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
    }

    /// SIGTERM (the broker writes its persistence file and exits), SIGKILL after 5 s; returns once
    /// it exited and its ports are free. Safe to call more than once; keeps the directory.
    public func stop() async {
        await process.end(grace: .seconds(5))
    }

    /// Stops this broker and starts another on the same ports and persistence directory.
    public func restart() async throws -> Mosquitto {
        await stop()
        return try await Mosquitto.start(options, port: port, tlsPort: tlsPort, directory: directory)
    }

    /// The broker's process id (for CPU figures in benches).
    public var pid: Int32 { process.processIdentifier }

    /// Stops the broker and removes its directory.
    public func remove() async {
        await stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Runs `body` with a new broker, then stops it and removes its directory, also when `body` throws.
    public static func with<T>(_ options: Options = Options(), _ body: (Mosquitto) async throws -> T) async throws -> T {
        let broker = try await start(options)
        do {
            let result = try await body(broker)
            await broker.remove()
            return result
        } catch {
            await broker.remove()
            throw error
        }
    }
}

/// A CA, a server certificate it signed for 127.0.0.1 and localhost, one it signed for another host
/// name only (to show that host names are checked), and a second, unrelated CA (to show that a
/// client trusting the wrong CA is refused), all made with the `openssl` command.
public struct TestCertificates: Sendable {
    public var caCertificate: URL
    public var serverCertificate: URL
    public var serverKey: URL
    public var wrongHostCertificate: URL
    public var wrongHostKey: URL
    public var otherCACertificate: URL

    /// Makes them in `directory` (P-256 keys, valid for two days).
    public static func make(in directory: URL) async throws -> TestCertificates {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        func run(_ arguments: [String]) async throws {
            let result = try await runProcess(openssl, arguments)
            guard result.status == 0 else {
                throw MosquittoError.setup("openssl \(arguments.prefix(2).joined(separator: " ")): \(result.stderr)")
            }
        }
        for name in ["ca", "other-ca"] {
            try await run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                           "-keyout", path("\(name).key"), "-out", path("\(name).crt"), "-days", "2",
                           "-subj", "/CN=livelocd test \(name)",
                           "-addext", "basicConstraints=critical,CA:TRUE",
                           "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        }
        for (name, names) in [("server", "IP:127.0.0.1,DNS:localhost"), ("wrong-host", "DNS:elsewhere.invalid")] {
            try await run(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                           "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
            let extensions = directory.appendingPathComponent("\(name).ext")
            try Data("""
                basicConstraints=CA:FALSE
                keyUsage=critical,digitalSignature,keyAgreement
                extendedKeyUsage=serverAuth
                subjectAltName=\(names)

                """.utf8).write(to: extensions)
            try await run(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                           "-CAcreateserial", "-out", path("\(name).crt"), "-days", "2", "-extfile", extensions.path])
        }
        return TestCertificates(caCertificate: URL(fileURLWithPath: path("ca.crt")),
                                serverCertificate: URL(fileURLWithPath: path("server.crt")),
                                serverKey: URL(fileURLWithPath: path("server.key")),
                                wrongHostCertificate: URL(fileURLWithPath: path("wrong-host.crt")),
                                wrongHostKey: URL(fileURLWithPath: path("wrong-host.key")),
                                otherCACertificate: URL(fileURLWithPath: path("other-ca.crt")))
    }
}

/// One message as `MQTTSubscriber` saw it.
public struct ReceivedMessage: Sendable, Equatable {
    public var retained: Bool
    public var qos: Int
    /// The MQTT 5 message expiry interval left when the broker sent it; nil without one.
    public var expirySeconds: Int?
    public var topic: String
    public var payload: String
    /// When it arrived (Unix seconds, from mosquitto_sub's `%U`).
    public var receivedAt: Double
    /// MQTT 5 response topic and correlation data (as text), when the message had them.
    public var responseTopic: String?
    public var correlationData: String?
}

/// `mosquitto_sub` (MQTT 5, QoS 1) on a broker, collecting every message with its topic, retained
/// flag, QoS and expiry. With `clientID`, the session is persistent (`-c`): messages published while
/// it is away (a broker restart) are kept for it.
public final class MQTTSubscriber: Sendable {
    public let process: DaemonProcess
    private static let separator = "\u{1F}"

    /// Starts `mosquitto_sub -d` (its debug lines show the SUBACK: `waitUntilSubscribed`), as a user
    /// when given (the password in an options file, as `MQTTPublisher` does).
    public init(port: UInt16, topics: [String], clientID: String? = nil, extraArguments: [String] = [],
                as credentials: MQTTPublisher.Credentials? = nil) async throws {
        var arguments = ["-h", "127.0.0.1", "-p", String(port), "-V", "mqttv5", "-q", "1", "-d",
                         "-F", ["%r", "%q", "%E", "%U", "%R", "%D", "%t", "%p"].joined(separator: Self.separator)]
        for topic in topics { arguments += ["-t", topic] }
        if let clientID { arguments += ["-i", clientID, "-c", "-x", "3600"] }
        // Line-buffered: mosquitto_sub's stdio buffers a pipe fully, debug lines included.
        var environment: [String: String] = [:]
        if let credentials { environment["XDG_CONFIG_HOME"] = try MQTTPublisher.optionsDirectory(for: credentials, program: "mosquitto_sub").path }
        process = try await DaemonProcess(URL(fileURLWithPath: "/usr/bin/stdbuf"),
                                    ["-oL", "/usr/bin/mosquitto_sub"] + arguments + extraArguments, environment: environment)
    }

    /// Waits (up to `timeout`) until the broker acknowledged the subscription.
    public func waitUntilSubscribed(timeout: Duration = .seconds(30)) async throws {
        try await process.waitForLine(.stdout, timeout: timeout) { $0.contains("received SUBACK") }
    }

    /// The messages received so far, in order.
    public var messages: [ReceivedMessage] {
        process.lines(.stdout).compactMap(Self.parse)
    }

    /// Waits (up to `timeout`) until `count` messages satisfy `predicate`; returns them all.
    @discardableResult
    public func waitForMessages(count: Int, timeout: Duration = .seconds(20),
                                where predicate: @escaping @Sendable (ReceivedMessage) -> Bool = { _ in true })
        async throws -> [ReceivedMessage] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            let matching = messages.filter(predicate)
            if matching.count >= count { return matching }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw MosquittoError.timedOut(waitingFor: "\(count) message(s)", got: messages.filter(predicate).count)
    }

    public func stop() async {
        await process.kill9()
    }

    static func parse(_ line: String) -> ReceivedMessage? {
        let parts = line.components(separatedBy: separator)
        guard parts.count >= 8, let qos = Int(parts[1]), let at = Double(parts[3]) else { return nil }
        return ReceivedMessage(retained: parts[0] == "1", qos: qos, expirySeconds: Int(parts[2]), topic: parts[6],
                               payload: parts[7...].joined(separator: separator), receivedAt: at,
                               responseTopic: parts[4].isEmpty ? nil : parts[4], correlationData: parts[5].isEmpty ? nil : parts[5])
    }
}

/// Why a test broker could not be started or a wait ended.
public enum MosquittoError: Error, CustomStringConvertible {
    case setup(String)
    case exited(status: Int32, log: String)
    case notListening(port: UInt16, log: String)
    case timedOut(waitingFor: String, got: Int)

    public var description: String {
        switch self {
        case .setup(let message): "broker set-up failed: \(message)"
        case .exited(let status, let log): "mosquitto exited with status \(status): \(log.suffix(600))"
        case .notListening(let port, let log): "mosquitto did not listen on 127.0.0.1:\(port): \(log.suffix(600))"
        case .timedOut(let what, let got): "timed out waiting for \(what); got \(got)"
        }
    }
}

/// `mosquitto_pub` (MQTT 5, QoS 1): one message, as a user when given. The user's password goes in
/// a mosquitto_pub options file (`$XDG_CONFIG_HOME/mosquitto_pub`), never on the command line.
public enum MQTTPublisher {
    public struct Credentials: Sendable {
        public var user: String
        public var password: String

        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// Publishes `payload` on `topic`; returns mosquitto_pub's result (status 0: the broker took it,
    /// MQTT 5 PUBACK success; an ACL refusal is a warning on stderr). With `repeatCount`, the same
    /// message that many times on one connection (`--repeat`: a burst), `repeatDelaySeconds` apart
    /// (none: without delay).
    @discardableResult
    public static func publish(port: UInt16, topic: String, payload: String, as credentials: Credentials? = nil,
                               retain: Bool = false, expirySeconds: Int? = nil, responseTopic: String? = nil,
                               correlationData: String? = nil, clientID: String? = nil,
                               repeatCount: Int? = nil, repeatDelaySeconds: Double? = nil) async throws -> ProcessResult {
        var arguments = ["-h", "127.0.0.1", "-p", String(port), "-V", "mqttv5", "-q", "1", "-d", "-t", topic, "-m", payload]
        if retain { arguments.append("-r") }
        if let repeatCount { arguments += ["--repeat", String(repeatCount)] }
        if let repeatDelaySeconds { arguments += ["--repeat-delay", String(repeatDelaySeconds)] }
        if let clientID { arguments += ["-i", clientID] }
        if let expirySeconds { arguments += ["-D", "publish", "message-expiry-interval", String(expirySeconds)] }
        if let responseTopic { arguments += ["-D", "publish", "response-topic", responseTopic] }
        if let correlationData { arguments += ["-D", "publish", "correlation-data", correlationData] }
        var environment = ProcessInfo.processInfo.environment
        let directory = try credentials.map { try optionsDirectory(for: $0, program: "mosquitto_pub") }
        if let directory { environment["XDG_CONFIG_HOME"] = directory.path }
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        return try await runProcess(URL(fileURLWithPath: "/usr/bin/mosquitto_pub"), arguments, environment: environment,
                                    timeout: .seconds(20))
    }

    /// A directory holding `program`'s options file with the user and password (mode 0600), for
    /// `XDG_CONFIG_HOME`.
    public static func optionsDirectory(for credentials: Credentials, program: String) throws -> URL {
        let home = try Paths.temporaryDirectory(program)
        _ = FileManager.default.createFile(atPath: home.appendingPathComponent(program).path,
                                       contents: Data("-u \(credentials.user)\n-P \(credentials.password)\n".utf8),
                                       attributes: [.posixPermissions: 0o600])
        return home
    }
}
