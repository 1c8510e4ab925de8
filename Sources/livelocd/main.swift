import ArgumentParsing
import CMalloc
import Daemon
import Delivery
import SystemIO
import Settings
#if canImport(Glibc)
import Glibc
#endif

var configuration = DaemonConfiguration()
let keyList = configuration.settings.map { setting in
    let flag = "  --\(setting.key) \(setting.value)"
    return flag + String(repeating: " ", count: max(1, 44 - flag.count)) + setting.helpWithDefault
}.joined(separator: "\n")

let help = """
    usage: livelocd [--config FILE] [--KEY VALUE ...]

    Shares this device's live location: runs in the foreground, takes fixes from gpsd or a replayed
    NMEA log, delivers share events to its destinations, and is controlled through a Unix socket with
    'liveloc start|stop|status'. Logs go to stderr, one line per event (from log.level up; with
    their priority when stderr is the journal); events (sinks.stdout) to stdout as JSON lines.
    SIGTERM or SIGINT stops it; the active share is kept and resumed at the next start.

    options:
      --version                                 print the package version and the commit, and exit
      --config FILE                             the configuration file (default \(DaemonConfiguration.defaultFile);
                                                a missing default file means the defaults)
    Every configuration key is also an option, overriding the file (liveloc share's spelling of it,
    such as --replay, --state-directory or --log-level, is taken too):
    \(keyList)

    exit status: 0 after SIGTERM/SIGINT, 1 on a runtime failure, 2 on a bad configuration or usage.
    """

// Every line livelocd writes to stderr goes through one handler: with its journald priority when
// stderr is the journal. The process's logger is bootstrapped once the configuration gives its level.
let standardError = StandardErrorLogHandler(program: "livelocd")

/// A bad configuration or usage: one line at the error level, and `status`.
func fail(_ message: String, status: Int32) -> Never {
    Logger(handler: standardError).error(message)
    exit(status)
}

// One malloc arena for all threads, set before any thread starts: glibc would give each thread
// that allocates an arena of its own, each with its own free space (what it cost: docs/benchmarks.md,
// "One malloc arena"). The daemon's threads mostly sleep, and per-thread caches (tcache)
// serve small allocations without the arena's lock.
mallopt(M_ARENA_MAX, 1)
// Tasks run on livelocd's own threads, not libdispatch's, whose monitor would wake the daemon every
// second for as long as it runs (PoolExecutor). Before any task is made.
PoolExecutor.installAsDefault(name: "livelocd-pool", threads: 1)

let words = Array(processArguments().dropFirst())
if words.contains("--help") || words.contains("-h") {
    print(help)
    exit(0)
}
if words.contains("--version") {
    print(BuildInfo.versionLine(program: "livelocd"))
    exit(0)
}
var options: [String: Arguments.Kind] = ["--config": .value]
for setting in configuration.settings { options["--" + setting.key] = setting.isRepeatable ? .repeatedValue : .value }
// `liveloc share`'s spelling of a key is taken too: `--replay` for `--replay.file`, `--log-level`
// for `--log.level`, `--state-directory` for `--state_directory`.
let shareSpellings = Dictionary(configuration.tables.optionsByKeyFlag.map { ($1, $0) }) { first, _ in first }

let destinations: [ConfiguredDestination]
do {
    let arguments = try Arguments(words, options: options, aliases: shareSpellings)
    if let operand = arguments.operands.first { throw UsageError("unexpected argument '\(operand)'") }
    try configuration.apply(file: arguments.value("--config") ?? DaemonConfiguration.defaultFile,
                            required: arguments.has("--config"))
    for name in options.keys.sorted() where name != "--config" {
        for value in arguments.value(name).map({ [$0] }) ?? arguments.values(name) {
            let key = String(name.dropFirst(2))
            do { try configuration.set(key, to: value) } catch { fail("\(arguments.spelling(name)): \(error)", status: 2) }
        }
    }
    try configuration.validate()
    destinations = try configuration.configuredDestinations()
} catch let error as UsageError {
    fail("\(error); run 'livelocd --help'", status: 2)
} catch {
    fail("\(error)", status: 2)
}

// The daemon runs on the concurrency pool; the main thread waits (see runBlockingMain: an async
// top level would end it in dispatch_main, and unwinding it kept 370 KiB of .eh_frame resident).
let finalConfiguration = configuration
Logger.bootstrap(Logger(handler: standardError, level: configuration.logLevel))
exit(runBlockingMain { await LivelocDaemon.run(finalConfiguration, destinations: destinations) })
