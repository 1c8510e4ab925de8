import ArgumentParsing
import GPSD
import JSONCoding
import LiveLocation
import Serial
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// `liveloc fixes`: a live source's fixes as TPV JSON lines on stdout, as they arrive.
enum FixesCommand: Command {
    static let name = "fixes"
    static let summary = "print a receiver's fixes (from gpsd or a serial port) as TPV JSON lines"
    static let help = """
        usage: liveloc fixes (--gpsd [HOST[:PORT]] [--gpsd-device PATH] | --serial PATH [--baud auto|RATE])
                             [--count N]

        Prints one TPV JSON line per fix on stdout (the fields of `liveloc decode`: time, mode,
        lat, lon, altMSL, altHAE, speed, track, eph, hdop, satellites), each written as soon as the
        source has it, to check a receiver before sharing. State changes go to stderr. When gpsd is
        not running or goes away, liveloc keeps reconnecting (0.25 s doubling to 8 s); when the
        serial device is absent or unplugged, it waits for it (0.25 s doubling to 4 s). Runs until
        SIGINT or SIGTERM, or until N fixes were printed.

        options:
          --gpsd [HOST[:PORT]] gpsd to read (default localhost:2947; IPv6 as [::1]:2947)
          --gpsd-device PATH   only this receiver of gpsd's (e.g. /dev/ttyACM0)
        \(SerialOptions.help)
          --count N            exit after N fixes

        exit status: 0 after a signal or N fixes, 1 when stdout cannot be written, 2 on bad usage.
        """

    static let options: [String: Arguments.Kind] = SerialOptions.options.merging([
        "--gpsd": .optionalValue, "--gpsd-device": .value, "--count": .value,
    ]) { first, _ in first }

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: options)
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        let count = try arguments.value("--count", as: "a whole number >= 1") { Int($0).flatMap { $0 >= 1 ? $0 : nil } }
        if let source = try SerialOptions.source(arguments, log: .shared) {
            return try await printFixes(of: source, count: count)
        }
        guard arguments.has("--gpsd") else { throw UsageError("missing source: --gpsd [HOST[:PORT]] or --serial PATH") }
        let endpoint = try arguments.value("--gpsd", as: "HOST, HOST:PORT or [IPV6]:PORT", GPSDEndpoint.init(parsing:))
            ?? .default
        if let device = arguments.value("--gpsd-device"), device.isEmpty {
            throw UsageError("invalid value '' for --gpsd-device: expected a device path")
        }
        let source = GPSDSource(endpoint: endpoint, device: arguments.value("--gpsd-device"), log: .shared)
        return try await printFixes(of: source, count: count)
    }

    /// Prints `source`'s fixes until a signal, or `count` of them.
    private static func printFixes<Source: LocationSource>(of source: Source, count: Int?) async throws -> Int32 {
        let signals = signalStream([SIGINT, SIGTERM])
        return try await withThrowingTaskGroup(of: Int32.self) { group in
            group.addTask {
                var printed = 0
                for try await fix in source.fixes() {
                    try FileDescriptor.standardOutput.writeAll(fix.tpvJSONLineBytes)
                    printed += 1
                    if let count, printed >= count { return 0 }
                }
                return 0  // cancelled
            }
            group.addTask {
                for await _ in signals { return 0 }
                return 0
            }
            defer { group.cancelAll() }
            do {
                return try await group.next() ?? 0
            } catch let error as SystemError {
                throw CommandFailure("stdout: \(error)")
            }
        }
    }
}
