#if canImport(Glibc)
import Glibc
#endif
import ArgumentParsing
import Relay
import ShareLink
import SystemIO

// livelocd-relay: the share links' relay (issue 33). It stores and forwards only ciphertext: the
// key is in the link's fragment, on the device and in the viewers' browsers.

let help = """
    Usage: livelocd-relay --secret-file FILE [--listen ADDR:PORT] [options]

    Relays live-location shares sealed by livelocd (destination 'link') to the viewers of their
    links, end-to-end encrypted: it holds only ciphertext, in memory, and never the key.

      --listen ADDR:PORT        address to listen on (default 127.0.0.1:8765; [::]:8765 for IPv6)
      --secret-file FILE        the devices' secrets, one per line, at least 32 characters each
                                (mode 0600; the systemd credential 'relay-secrets' when absent)
      --behind-proxy            a reverse proxy (Caddy, nginx) is in front: no per-address
                                connection limit, X-Forwarded-For's last address throttled
      --max-connections N       connections at once (default 4096)
      --max-shares N            live shares at once (default 256)
      --ended-retention DURATION  how long an ended share's page shows its end (default 1h)
      --request-deadline DURATION  time a request may take in all, headers and body, before the
                                connection is cut (slowloris; default 30s; viewers' streams exempt)
      --tiles URL|none          the map's tiles, a template with {z}, {x}, {y} (and {s}); 'none':
                                a grid and a scale, nothing fetched but from the relay (default
                                OpenStreetMap's, https://tile.openstreetmap.org/{z}/{x}/{y}.png)
      --tiles-attribution TEXT  the attribution the tiles' licence asks for, shown on the map
                                (default for OpenStreetMap's: '© OpenStreetMap contributors')
      --leaflet-dir DIR         where Leaflet is (default /usr/share/javascript/leaflet, Debian's
                                libjs-leaflet); without it the page draws a sketch of the trail
      --help                    print this help and exit
      --version                 print the package version and the commit, and exit
    """

let words = Array(processArguments().dropFirst())
if words.contains("--help") || words.contains("-h") {
    print(help)
    exit(0)
}
if words.contains("--version") {
    print(BuildInfo.versionLine(program: "livelocd-relay"))
    exit(0)
}

func usage(_ message: String) -> Never {
    writeErrorLine("livelocd-relay: \(message)\nTry 'livelocd-relay --help'.")
    exit(2)
}

func writeErrorLine(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

var options: RelayServer.Options
do {
    let arguments = try Arguments(words, options: [
        "--listen": .value, "--secret-file": .value, "--behind-proxy": .flag, "--max-connections": .value,
        "--max-shares": .value, "--ended-retention": .value, "--tiles": .value, "--request-deadline": .value, "--tiles-attribution": .value, "--leaflet-dir": .value,
    ])
    if let operand = arguments.operands.first { throw UsageError("unexpected argument '\(operand)'") }
    let listen = arguments.value("--listen") ?? "127.0.0.1:8765"
    guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
        throw UsageError("--listen \(listen): expected ADDR:PORT")
    }
    var host = String(listen[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard let secretFile = arguments.value("--secret-file") ?? Credentials.path("relay-secrets") else {
        throw UsageError("--secret-file is required (secrets never go on the command line)")
    }
    let secrets: [[UInt8]]
    do {
        switch RelaySecrets.parse(try readSecretFile(secretFile)) {
        case .success(let parsed): secrets = parsed
        case .failure(let error): throw UsageError("secret file \(secretFile): \(error)")
        }
    } catch let error as SecretFileError {
        throw UsageError("\(error)")
    }
    options = RelayServer.Options(host: host, port: port, secrets: secrets)
    options.behindProxy = arguments.has("--behind-proxy")
    if let limit = try arguments.value("--max-connections", as: "a whole number > 0", { UInt32($0).flatMap { $0 > 0 ? $0 : nil } }) {
        options.connectionLimit = limit
    }
    if let shares = try arguments.value("--max-shares", as: "a whole number > 0", { Int($0).flatMap { $0 > 0 ? $0 : nil } }) {
        options.limits.shares = shares
    }
    if let retention = try arguments.value("--ended-retention", as: Duration.textSyntax, { Duration(durationText: $0) }) {
        options.limits.endedRetentionSeconds = retention.components.seconds
    }
    if let deadline = try arguments.value("--request-deadline", as: Duration.textSyntax + ", at least 1s",
                                          { Duration(durationText: $0).flatMap { $0 >= .seconds(1) ? $0 : nil } }) {
        options.requestDeadlineSeconds = Int(deadline.components.seconds)
    }
    switch arguments.value("--tiles") {
    case nil:
        if let attribution = arguments.value("--tiles-attribution"), case .url(let template, _) = options.tiles {
            options.tiles = .url(template: template, attribution: attribution)
        }
    case "none":
        options.tiles = .none
    case let template?:
        guard let attribution = arguments.value("--tiles-attribution") else {
            throw UsageError("--tiles \(template): --tiles-attribution is required (the tiles' licence asks for one)")
        }
        guard let tiles = MapTiles(template: template, attribution: attribution) else {
            throw UsageError("--tiles \(template): expected an http:// or https:// URL template with {z}, {x} and {y}, or 'none'")
        }
        options.tiles = tiles
    }
    if let directory = arguments.value("--leaflet-dir") { options.leafletDirectory = directory }
} catch let error as UsageError {
    usage(error.message)
} catch {
    usage("\(error)")
}

// SIGTERM and SIGINT are taken by sigwait below: blocked before MHD's threads start (they inherit the mask).
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGTERM)
sigaddset(&signals, SIGINT)
pthread_sigmask(SIG_BLOCK, &signals, nil)
signal(SIGPIPE, SIG_IGN)
let server = RelayServer(options: options)
do {
    try server.start()
} catch {
    writeErrorLine("\(error)")
    exit(1)
}
writeErrorLine("livelocd-relay: listening on \(options.host):\(server.port) (\(options.secrets.count) device secret(s))")
if server.leaflet == nil {
    writeErrorLine("livelocd-relay: no Leaflet in \(options.leafletDirectory ?? "-") (libjs-leaflet): the page draws a sketch, no map")
}
let notifier = SystemdNotifier.fromEnvironment()
try? notifier.notify("READY=1")
var received: Int32 = 0
sigwait(&signals, &received)
try? notifier.notify("STOPPING=1")
server.stop()
writeErrorLine("livelocd-relay: stopped")
exit(0)
