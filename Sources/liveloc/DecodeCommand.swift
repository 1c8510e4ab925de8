import ArgumentParsing
import LiveLocation
import NMEA
import SystemIO
import Track

/// `liveloc decode`: NMEA 0183 in, one gpsd-style TPV JSON line per fix out.
enum DecodeCommand: Command {
    static let name = "decode"
    static let summary = "decode an NMEA 0183 log into fixes (JSON lines, GPX, GeoJSON or CSV)"
    static let help = """
        usage: liveloc decode [FILE|-] [--format json|gpx|geojson|csv] [--gap DURATION] [--stats]

        Decodes NMEA 0183 from FILE (or standard input, when FILE is '-' or absent) and prints one
        JSON line per fix in gpsd's TPV vocabulary: class, time, mode, lat, lon, altMSL, altHAE,
        speed (m/s), track (degrees true), eph (metres, 95 %, from GST), hdop, satellites.
        With --format, the fixes are written as a track instead (formats in README.md): GPX 1.1,
        GeoJSON (a LineString per continuous segment) or CSV; a new segment starts after a gap.

        Sentences of every talker (GP, GN, GL, GA, GB, BD, GQ, ...) are accepted; RMC, GGA, GNS, GLL,
        VTG, GSA, ZDA and GST are decoded; proprietary and other sentences are skipped. Sentences
        with the same time of day are merged into one fix (one per position, when a receiver's
        sentences disagree); the date comes from RMC or ZDA, so no fix is printed before the first
        date. Lines with a bad checksum, garbage or overlong lines are counted and skipped.

        examples:
          liveloc decode drive.nmea > fixes.jsonl
          gpspipe -r | liveloc decode --stats
          liveloc decode drive.nmea --format gpx > drive.gpx

        options:
          --format F  json (default: TPV lines), gpx, geojson or csv
          --gap D     a new track segment after more than D without a fix: 30s, 2m (default 30s)
          --stats   at the end, print one line of counts to standard error (lines, sentences, fixes,
                    bad checksum, malformed, overlong, ignored, comments, without checksum)

        exit status: 0 when the input was read to its end, however dirty; 2 when FILE cannot be
        opened or read, or for a usage mistake.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: ["--stats": .flag, "--format": .value, "--gap": .value])
        let format = try arguments.value("--format", as: TrackFormat.choices, TrackFormat.init(argument:)) ?? .json
        let gap = try arguments.value("--gap", as: "\(Duration.textSyntax), more than 0", positiveDuration)
        if gap != nil, format == .json { throw UsageError("--gap needs --format gpx, geojson or csv") }
        guard arguments.operands.count <= 1 else {
            throw UsageError("expected at most one FILE, got \(arguments.operands.count)")
        }
        let path = arguments.operands.first ?? "-"
        let input: FileDescriptor
        if path == "-" {
            input = .standardInput
        } else {
            do { input = try FileDescriptor.openForReading(path) } catch {
                throw CommandFailure("\(error)", exitStatus: 2)
            }
        }
        defer { if path != "-" { input.close() } }

        var writer = TrackWriter(format: format, name: path == "-" ? nil : String(path.split(separator: "/").last ?? ""),
                                 maximumGap: gap ?? TrackSegmenter.defaultMaximumGap)
        let statistics = try decode(input, path: path, into: &writer)
        if arguments.has("--stats") {
            printError("decode: \(statistics)")
        }
        return 0
    }

    /// Decodes `input` to its end, writing each fix through `writer` to standard output. The fixes
    /// of each read are gathered first and written in one go: no callback per fix into this
    /// function's state (which Swift would check for exclusive access at run time, per fix).
    private static func decode(_ input: FileDescriptor, path: String, into writer: inout TrackWriter) throws
        -> NMEAStatistics {
        var decoder = NMEADecoder()
        var output = BufferedOutput(.standardOutput)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        var fixes: [Fix] = []
        var text: [UInt8] = []
        func write() throws {
            for fix in fixes { writer.append(fix, to: &text) }
            fixes.removeAll(keepingCapacity: true)
            do { try output.write(text) } catch { throw CommandFailure("\(error)") }
            text.removeAll(keepingCapacity: true)
        }
        while true {
            let count: Int
            do { count = try input.read(into: chunk) } catch {
                throw CommandFailure("read \(path): \(error)", exitStatus: 2)
            }
            if count == 0 { break }
            decoder.feed(UnsafeRawBufferPointer(rebasing: chunk[0..<count])) { fixes.append($0) }
            try write()
            // A short read means the input is live (a pipe from a receiver): show fixes now.
            if count < chunk.count { try output.flush() }
        }
        decoder.finish { fixes.append($0) }
        try write()
        writer.finish(to: &text)
        try output.write(text)
        try output.flush()
        return decoder.statistics
    }
}

/// A number of seconds > 0 as whole milliseconds (at most 100 years).
/// A track gap: the one duration syntax, more than zero.
func positiveDuration(_ text: String) -> Duration? {
    Duration(durationText: text).flatMap { $0 > .zero ? $0 : nil }
}
