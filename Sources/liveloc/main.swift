import ArgumentParsing
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

let commands: [any Command.Type] = [
    DecodeCommand.self, ShareCommand.self, FixesCommand.self,
    StartCommand.self, StopCommand.self, ExtendCommand.self, StatusCommand.self, TrackCommand.self,
]

let overview = """
    usage: liveloc COMMAND [OPTIONS]

    Shares a device's live location from gpsd or a replayed NMEA log, and controls livelocd.

    commands:
    \(commands.map { "  \($0.name + String(repeating: " ", count: max(0, 8 - $0.name.count))) \($0.summary)" }.joined(separator: "\n"))

    Run 'liveloc COMMAND --help' for a command's options, 'liveloc --version' for the version.
    """

func runMain() async -> Int32 {
    let words = Array(processArguments().dropFirst())
    guard let name = words.first else {
        printError("missing command; run 'liveloc --help'")
        return 2
    }
    if name == "--help" || name == "-h" || name == "help" {
        print(overview)
        return 0
    }
    if name == "--version" {
        print(BuildInfo.versionLine(program: "liveloc"))
        return 0
    }
    guard let command = commands.first(where: { $0.name == name }) else {
        printError("unknown command '\(name)'; run 'liveloc --help'")
        return 2
    }
    let rest = Array(words.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        print(command.help)
        return 0
    }
    do {
        return try await command.run(rest)
    } catch let error as UsageError {
        printError("\(name): \(error)")
        return 2
    } catch let error as CommandFailure {
        printError("\(name): \(error)")
        return error.exitStatus
    } catch {
        printError("\(name): \(error)")
        return 1
    }
}

// Tasks run on liveloc's own threads, not libdispatch's, whose monitor would wake a long
// `liveloc share` every second (PoolExecutor); the main thread waits. Before any task is made.
PoolExecutor.installAsDefault(name: "liveloc-pool", threads: 1)
// Every line liveloc writes to stderr goes through one logger (its level: `liveloc share --log-level`).
Logger.bootstrap(Logger(handler: StandardErrorLogHandler(program: "liveloc")))
exit(runBlockingMain { await runMain() })
