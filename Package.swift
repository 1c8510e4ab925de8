// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way (down): docs/architecture.md draws the graph, made from this file by
// scripts/module-graph (make docs; make docs-check checks it). Every dependency listed is imported,
// and every import is listed: `swift build --explicit-target-dependency-import-check error`.
let package = Package(
    name: "livelocd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "liveloc", targets: ["liveloc"]),
        .executable(name: "livelocd", targets: ["livelocd"]),
        .executable(name: "livelocd-relay", targets: ["livelocd-relay"]),
        // Fuzz harnesses (scripts/fuzz builds them with libFuzzer; a normal build only replays files).
        .executable(name: "fuzz-nmea", targets: ["FuzzNMEA"]),
        .executable(name: "fuzz-control", targets: ["FuzzControl"]),
        .executable(name: "fuzz-config", targets: ["FuzzConfig"]),
        .executable(name: "fuzz-http", targets: ["FuzzHTTP"]),
        .executable(name: "fuzz-relay", targets: ["FuzzRelay"]),
        .executable(name: "bench-latency", targets: ["bench-latency"]),
    ],
    targets: [
        // Pure core.
        .target(name: "LiveLocation", dependencies: ["Locking"]),
        .target(name: "NMEA", dependencies: ["LiveLocation"]),
        // Pure: fixes to GPX, GeoJSON, CSV and JSON lines, streaming.
        .target(name: "Track", dependencies: ["LiveLocation", "JSONCoding"]),

        // JSON text without Foundation: the one writer of JSON lines (events on stdout and to the
        // destinations, gpsd-style fixes, MQTT payloads), string escaping, and Codable values to and
        // from JSON text (the control protocol, share.json).
        .target(name: "JSONCoding", dependencies: ["LiveLocation"]),

        // The package's one mutex (Synchronization's, with ThreadSanitizer's annotations, weak: nothing
        // in a normal build), used by every module that keeps state behind a lock.
        .target(name: "Locking", dependencies: ["CThreadSanitizer"]),
        .systemLibrary(name: "CThreadSanitizer", path: "Sources/CThreadSanitizer"),

        // Thin typed layer over the system calls the adapters use.
        .target(name: "SystemIO", dependencies: ["CTimex", "Locking"]),
        // glibc's adjtimex and timerfd (sys/timex.h, sys/timerfd.h), headers only: SystemIO reads whether
        // the clock is synchronized, and sleeps on a timerfd (DeadlineTimer).
        .systemLibrary(name: "CTimex", path: "Sources/CTimex"),

        // Capped exponential backoff with jitter, for whatever retries: the live sources' reconnects,
        // the destinations' deliveries.
        .target(name: "Retry"),

        // SHA-256, HMAC-SHA256 and base64 in Swift, for the webhook's signatures (no libcrypto mapped).
        .target(name: "Signing"),

        // Share links (issue 33): AES-256-GCM sealing of events through OpenSSL's libcrypto, loaded on
        // first use by a C shim as libcurl is (Sources/CCrypto/include/ccrypto.h; headers from
        // libssl-dev), the link's id and key, and the signed post a device makes to the relay.
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "ShareLink", dependencies: ["CCrypto", "Signing"]),
        // The relay (livelocd-relay): GNU libmicrohttpd (Debian's libmicrohttpd-dev) serves the
        // devices' sealed posts, the viewers' Server-Sent Events and the viewer page.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "Relay", dependencies: ["CMicroHTTPD", "ShareLink", "Locking", "SystemIO"]),
        .executableTarget(name: "livelocd-relay", dependencies: ["Relay", "ShareLink", "ArgumentParsing", "SystemIO"]),

        // A small command-line parser shared by the executables (no outside packages here), and
        // their `--version` (BuildInfo): the package version (debian/changelog) and the git commit,
        // taken in at compile time by a C file (#embed; the Makefile writes .build/build-commit).
        .target(name: "CBuildInfo"),
        .target(name: "ArgumentParsing", dependencies: ["CBuildInfo"]),

        // Adapters.
        .target(name: "Replay", dependencies: ["LiveLocation", "NMEA", "SystemIO"]),
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .target(name: "GPSD", dependencies: ["LiveLocation", "CGPS", "SystemIO", "Retry"]),
        // A receiver on a serial port (UART, USB), read without gpsd on a thread of its own.
        .target(name: "Serial", dependencies: ["LiveLocation", "NMEA", "SystemIO", "Locking", "Retry"]),
        // libcurl through a C shim that loads it on first use (see Sources/CCurl/include/ccurl.h);
        // its headers come from libcurl4-openssl-dev (scripts/install-deps).
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The MQTT client library (libmosquitto, MQTT 5 and 3.1.1, TLS through OpenSSL's libssl), through
        // a C shim that loads it on first use (Sources/CMosquitto/include/cmosquitto.h); its headers
        // come from libmosquitto-dev (scripts/install-deps).
        .target(name: "CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        // The configuration keys, described once (the help texts, livelocd.conf.example, the README's
        // key tables and livelocd.conf(5) come from them), their errors, and the word wrapping of
        // their help: shared by the daemon, `liveloc share` and every destination kind.
        .target(name: "Settings"),
        // The destination interface (Destination, QueuedEvent, DeliveryOutcome, QueuePolicy) and stdout.
        .target(name: "Delivery", dependencies: ["LiveLocation", "SystemIO", "Locking", "Retry", "Settings"]),
        // The durable store: the share's state and one queue per durable destination (SQLite).
        .target(name: "Journal", dependencies: ["LiveLocation", "JSONCoding", "Delivery", "SystemIO", "CSQLite", "Locking"]),
        // The share pipeline: the batch dispatcher, one runner per durable destination, stdout.
        .target(name: "Pipeline", dependencies: ["LiveLocation", "JSONCoding", "Delivery", "Journal", "SystemIO", "Locking"]),
        // An HTTP client on a queue of its own, for the HTTP destinations: a built-in HTTP/1.1 client
        // over TCP sockets for http://, libcurl (loaded on first use) for https://.
        .target(name: "HTTP", dependencies: ["CCurl", "LiveLocation", "SystemIO", "Signing", "Locking"]),
        // Destinations: one module each.
        .target(name: "Webhook", dependencies: ["LiveLocation", "SystemIO", "Delivery", "HTTP", "Signing", "Settings"]),
        .target(name: "Telegram", dependencies: ["LiveLocation", "JSONCoding", "SystemIO", "Delivery", "HTTP", "Locking", "Settings"]),
        .target(name: "Traccar", dependencies: ["LiveLocation", "Delivery", "HTTP", "SystemIO", "Settings"]),
        // MQTT through libmosquitto: the livelocd, OwnTracks and Home Assistant formats.
        .target(name: "MQTT", dependencies: ["LiveLocation", "JSONCoding", "SystemIO", "Delivery", "CMosquitto", "Locking", "Settings"]),
        // Share links: events sealed end-to-end to a livelocd-relay (issue 33).
        .target(name: "Link", dependencies: ["LiveLocation", "SystemIO", "Delivery", "HTTP", "ShareLink", "Signing", "Locking", "Settings"]),
        // The control protocol, its client (liveloc start|stop|status) and its server (livelocd).
        .target(name: "Control", dependencies: ["Delivery", "LiveLocation", "JSONCoding", "SystemIO", "Locking"]),
        // The list of destination kinds (each describes its settings and builds itself).
        .target(name: "DestinationKinds", dependencies: ["Delivery", "Webhook", "Telegram", "Traccar", "MQTT", "Link", "Settings"]),
        // The list of source kinds (gpsd, a replayed log, a serial receiver) and the one place that
        // opens any of them, for livelocd and liveloc share.
        .target(name: "SourceKinds", dependencies: ["LiveLocation", "Control", "Replay", "GPSD", "Serial", "Pipeline", "SystemIO"]),
        // The documents made from the settings tables (livelocd.conf.example, the README's key
        // tables, livelocd.conf(5)'s key sections): for the tests that check them and `make docs`,
        // in no shipped program.
        .target(name: "ConfigurationDocuments", dependencies: ["Delivery", "LiveLocation", "Settings"]),
        .target(name: "Daemon", dependencies: ["DestinationKinds", "SourceKinds", "LiveLocation", "GPSD", "Serial", "Delivery", "Journal", "Pipeline", "SystemIO", "Control", "Locking", "Settings"]),

        // Executables: argument parsing and wiring only.
        .executableTarget(name: "liveloc", dependencies: ["DestinationKinds", "SourceKinds", "LiveLocation", "JSONCoding", "NMEA", "Track", "Replay", "GPSD", "Serial", "Delivery", "Journal", "Pipeline", "Control", "SystemIO", "ArgumentParsing", "Locking", "Settings"]),
        // The release daemon: the Swift runtime linked statically, packed relative relocations, its
        // code laid out as it runs (link/livelocd.order and link/livelocd.ld), no exported symbols.
        // Why each flag, and what it saves: docs/benchmarks.md, the daemon's footprint. Release only:
        // debug builds (the tests, the sanitizers) keep the shared runtime, whose frames the
        // sanitizers' suppressions name.
        // glibc's mallopt, for livelocd's single malloc arena (Sources/livelocd/main.swift).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .executableTarget(name: "livelocd", dependencies: ["Daemon", "SystemIO", "ArgumentParsing", "CMalloc", "Delivery", "Settings"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                                         "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/link/livelocd.order",
                                                         "-Xlinker", "--no-warn-symbol-ordering",
                                                         "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/link/livelocd.ld",
                                                         "-Xlinker", "--no-export-dynamic"],
                                                        .when(configuration: .release))]),
        // bench/webhook-backlog.sh's helper: fills and drains a webhook outbox.
        .executableTarget(name: "webhook-bench", dependencies: ["Delivery", "Journal", "Pipeline", "Webhook", "LiveLocation", "SystemIO"]),

        // Fuzzing and benchmarks (scripts/fuzz, bench/): the invariants checked on arbitrary input, the
        // libFuzzer entry (CFuzzer, linked only with -sanitize=fuzzer) and the harness executables.
        .systemLibrary(name: "CFuzzer", path: "Sources/FuzzCShim"),
        .target(name: "FuzzChecks", dependencies: ["LiveLocation", "JSONCoding", "NMEA", "Daemon", "Control", "HTTP", "Telegram", "Traccar", "Delivery", "SystemIO", "CFuzzer", "Relay", "ShareLink"]),
        .executableTarget(name: "FuzzNMEA", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "FuzzControl", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "FuzzConfig", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "FuzzHTTP", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "FuzzRelay", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "bench-latency", dependencies: ["LiveLocation", "Replay", "Delivery", "Pipeline", "Webhook", "SystemIO", "ArgumentParsing", "Locking"]),

        // Shared by the test targets: finding the built executables, running processes, temp dirs.
        .target(name: "TestSupport", dependencies: ["LiveLocation", "Locking", "SystemIO"], path: "Tests/TestSupport"),
        .testTarget(name: "LiveLocationTests", dependencies: ["TestSupport", "LiveLocation", "JSONCoding", "Locking"]),
        .testTarget(name: "JSONCodingTests", dependencies: ["TestSupport", "JSONCoding", "LiveLocation"]),
        .testTarget(name: "RetryTests", dependencies: ["Retry", "Delivery", "LiveLocation"]),
        .testTarget(name: "TrackTests", dependencies: ["TestSupport", "Track", "Journal", "LiveLocation", "Locking"]),
        .testTarget(name: "LivelocTests", dependencies: ["liveloc", "Daemon", "ArgumentParsing", "Control", "Delivery", "LiveLocation"]),
        .testTarget(name: "ShareLinkTests", dependencies: ["TestSupport", "ShareLink", "Relay", "Link", "Delivery", "LiveLocation"]),
        .testTarget(name: "SigningTests", dependencies: ["TestSupport", "Signing"]),
        .testTarget(name: "NMEATests", dependencies: ["TestSupport", "NMEA", "LiveLocation"]),
        .testTarget(name: "ReplayTests", dependencies: ["TestSupport", "Replay", "LiveLocation", "SystemIO"]),
        .testTarget(name: "SerialTests", dependencies: ["TestSupport", "Serial", "Replay", "NMEA", "LiveLocation", "SystemIO", "Locking", "Retry"]),
        .testTarget(name: "GPSDTests", dependencies: ["TestSupport", "GPSD", "Replay", "LiveLocation", "Locking", "SystemIO"]),
        .testTarget(name: "HTTPTests", dependencies: ["TestSupport", "HTTP", "LiveLocation", "SystemIO"]),
        // A test-only SQLite VFS that simulates power cuts (unsynced writes lost), for JournalTests.
        .target(name: "CCrashVFS", path: "Tests/CCrashVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        .testTarget(name: "JournalTests", dependencies: ["TestSupport", "Journal", "Delivery", "LiveLocation", "CCrashVFS", "Locking", "SystemIO"]),
        .testTarget(name: "TelegramTests", dependencies: ["TestSupport", "Telegram", "HTTP", "Delivery", "Journal", "Pipeline", "LiveLocation", "Locking"]),
        .testTarget(name: "TraccarTests", dependencies: ["TestSupport", "Traccar", "HTTP", "Delivery", "Journal", "Pipeline", "LiveLocation"]),
        .testTarget(name: "WebhookTests", dependencies: ["TestSupport", "Webhook", "Delivery", "HTTP", "Journal", "Pipeline", "LiveLocation", "SystemIO", "Locking"]),
        .testTarget(name: "SystemIOTests", dependencies: ["TestSupport", "SystemIO", "Locking"]),
        .testTarget(name: "ControlTests", dependencies: ["Control", "JSONCoding", "LiveLocation", "SystemIO"]),
        // The daemon's parts in one process (run in parallel), and livelocd itself as processes (one at a time: `make test`).
        .testTarget(name: "DaemonTests", dependencies: ["TestSupport", "Daemon", "DestinationKinds", "Journal", "Pipeline", "Control", "LiveLocation", "Delivery", "Locking", "SystemIO", "ConfigurationDocuments", "Settings"]),
        .testTarget(name: "DaemonProcessTests", dependencies: ["TestSupport", "Daemon", "DestinationKinds", "LiveLocation", "SystemIO"]),
        .testTarget(name: "MQTTTests", dependencies: ["TestSupport", "MQTT", "Daemon", "Delivery", "LiveLocation", "JSONCoding", "Locking", "Settings"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "LiveLocation"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"]),
        .testTarget(name: "PackagingTests", dependencies: ["TestSupport", "ArgumentParsing", "Daemon", "ConfigurationDocuments", "Settings"]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["TestSupport", "FuzzChecks"]),
    ]
)

// Release builds put each function in a section of its own, so that the linker can place the code
// livelocd runs together (link/livelocd.order) and drop what nothing calls. (The package has no
// library product: no other package builds these targets, which SwiftPM would refuse for a target
// with unsafe flags.)
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))]
    target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-ffunction-sections"], .when(configuration: .release))]
}
