import ArgumentParsing
import Control
import LiveLocation
import SystemIO
import Track

/// `liveloc track`: one share's track from livelocd's journal, as GPX, GeoJSON or CSV.
enum TrackCommand: Command {
    static let name = "track"
    static let summary = "write a share's track (GPX, GeoJSON, CSV) from livelocd's journal"
    static let help = """
        usage: liveloc track [SHARE_ID|--last] [--format gpx|geojson|csv|json] [--gap DURATION]
                             [--socket PATH] [--timeout DURATION]

        Writes the track of one share to standard output: every fix the share accepted (throttled
        ones included), true positions before any privacy setting, as livelocd keeps them for
        track.retention (default 7 days) after the share's last fix. The share is SHARE_ID, or the
        one recorded last (--last, the default). Formats as for 'liveloc decode' (README.md); the
        track is read page by page and written as it comes.

        options:
          --last              the share recorded last (default)
          --format F          gpx (default), geojson, csv or json (TPV lines)
          --gap D             a new segment after more than D without a fix: 30s, 2m (default 30s)
        \(DaemonControl.optionsHelp)

        Only root, livelocd's user and members of its control group may read tracks.

        exit status: 0; 1 when livelocd is not running, refused, or keeps no such track; 2 on bad usage.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: DaemonControl.options.merging(
            ["--last": .flag, "--format": .value, "--gap": .value]) { $1 })
        guard arguments.operands.count <= 1 else { throw UsageError("expected at most one SHARE_ID") }
        var share = arguments.operands.first.map(ShareID.init(rawValue:))
        if let share, !ShareID.isValidCallerID(share.rawValue) {
            throw UsageError("'\(share.rawValue)' is not a share id (as 'liveloc start' prints it, or the caller's own: \(ShareID.callerIDRule))")
        }
        if share != nil, arguments.has("--last") { throw UsageError("SHARE_ID and --last exclude each other") }
        let format = try arguments.value("--format", as: TrackFormat.choices, TrackFormat.init(argument:)) ?? .gpx
        let gap = try arguments.value("--gap", as: "\(Duration.textSyntax), more than 0", positiveDuration)

        var writer: TrackWriter?
        var output = BufferedOutput(.standardOutput)
        var text: [UInt8] = []
        var after: Int64?
        repeat {
            let response = try DaemonControl.send(.track(share: share, after: after ?? 0), arguments)
            guard let page = response.track else { throw CommandFailure("livelocd sent no track") }
            share = ShareID(rawValue: page.shareId)  // the next pages of the same share, even when another starts meanwhile
            if writer == nil {
                writer = TrackWriter(format: format, name: "livelocd share \(page.shareId)",
                                     maximumGap: gap ?? TrackSegmenter.defaultMaximumGap)
            }
            for fix in page.fixes { writer!.append(fix, to: &text) }
            do { try output.write(text) } catch { throw CommandFailure("\(error)") }
            text.removeAll(keepingCapacity: true)
            after = page.next
        } while after != nil
        writer?.finish(to: &text)
        do {
            try output.write(text)
            try output.flush()
        } catch { throw CommandFailure("\(error)") }
        return 0
    }
}
