import LiveLocation

/// Writes a sequence of fixes as a track in one of the `TrackFormat`s, as the fixes come: each call
/// appends the text it can already write to `output`, so a caller can flush after every fix and an
/// 8-hour track needs no more memory than a minute's. A gap in the fixes (see `TrackSegmenter`)
/// starts a new segment: a `trkseg` in GPX, a Feature in GeoJSON, the `segment` column in CSV.
package struct TrackWriter: Sendable {
    package let format: TrackFormat
    private var encoder: any TrackEncoder
    private var segmenter: TrackSegmenter
    private var started = false

    /// - Parameters:
    ///   - format: the text format.
    ///   - name: the track's name (GPX `trk/name`, GeoJSON `properties.name`), e.g. a share's id.
    ///   - maximumGap: the longest time between two fixes of one segment.
    package init(format: TrackFormat, name: String? = nil,
                 maximumGap: Duration = TrackSegmenter.defaultMaximumGap) {
        self.format = format
        segmenter = TrackSegmenter(maximumGap: maximumGap)
        switch format {
        case .json: encoder = JSONLinesEncoder()
        case .gpx: encoder = GPXEncoder(name: name)
        case .geojson: encoder = GeoJSONEncoder(name: name)
        case .csv: encoder = CSVEncoder()
        }
    }

    /// Appends `fix` (after the header, for the first) to `output`.
    package mutating func append(_ fix: Fix, to output: inout [UInt8]) {
        startIfNeeded(to: &output)
        let startsSegment = segmenter.startsSegment(at: fix.time)
        encoder.append(fix, segment: segmenter.segment, startsSegment: startsSegment, to: &output)
    }

    /// Appends the end of the track to `output`. A track without fixes is still a whole document.
    package mutating func finish(to output: inout [UInt8]) {
        startIfNeeded(to: &output)
        encoder.finish(to: &output)
    }

    private mutating func startIfNeeded(to output: inout [UInt8]) {
        guard !started else { return }
        started = true
        encoder.start(to: &output)
    }
}
