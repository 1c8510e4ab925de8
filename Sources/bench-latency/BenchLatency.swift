import ArgumentParsing
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// `bench-latency FILE [--speed X]`: replays FILE twice, through the broadcaster and directly, writes
/// the events on stdout (make it a pipe: `| cat >/dev/null`) and prints the latency from a fix
/// leaving the source to its event's write returning: p50, p99 and max, in microseconds, on stderr.
@main
enum BenchLatency {
    static func main() async {
        let path: String
        let speed: Double
        do {
            let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()), options: ["--speed": .value])
            speed = try arguments.value("--speed", as: "a number >= 0") { Double($0).flatMap { $0 >= 0 ? $0 : nil } } ?? 100
            guard arguments.operands.count == 1 else { throw UsageError("expected one FILE") }
            path = arguments.operands[0]
        } catch {
            report("bench-latency: \(error)\nusage: bench-latency FILE [--speed X (default 100)] | cat >/dev/null")
            exit(2)
        }
        var info = stat()
        if fstat(1, &info) != 0 || (info.st_mode & S_IFMT) != S_IFIFO {
            report("bench-latency: stdout is not a pipe; the figures are for writes to a pipe")
        }
        let run = LatencyRun(path: path, speed: speed)
        do {
            let through = try await run.throughBroadcaster()
            let direct = try await run.direct()
            report("path (replay at \(speed)x)            fixes   p50 us   p99 us   max us  mean us")
            report(row("source > broadcaster > stdout", through))
            report(row("source > stdout (reference)", direct))
        } catch {
            report("bench-latency: \(error)")
            exit(1)
        }
    }

    static func row(_ name: String, _ latencies: [Duration]) -> String {
        let micros = latencies.map { Double($0.components.seconds) * 1e6 + Double($0.components.attoseconds) / 1e12 }.sorted()
        func percentile(_ p: Double) -> Double { micros[Int((Double(micros.count - 1) * p).rounded(.up))] }
        let mean = micros.reduce(0, +) / Double(micros.count)
        func column(_ value: Double, _ width: Int) -> String {
            let text = String(Int(value.rounded()))
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
        return name + String(repeating: " ", count: max(0, 36 - name.count)) + column(Double(micros.count), 6)
            + column(percentile(0.5), 9) + column(percentile(0.99), 9) + column(micros.last!, 9) + column(mean, 9)
    }

    static func report(_ line: String) {
        try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8))
    }
}
