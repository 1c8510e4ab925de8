import Journal
import LiveLocation

/// The control protocol's `track` operation: one page of a share's track from the journal.
enum TrackRequest {
    static func answer(_ request: ControlRequest, journal: Journal?) async -> ControlResponse {
        guard let journal, journal.trackRetention != nil else {
            return .failure(.notFound, "livelocd keeps no tracks (track.retention = off)")
        }
        var share: ShareID?
        if let text = request.share {
            guard isShareID(text) else { return .failure(.badRequest, "share must be a share id (lower-case UUID text)") }
            share = ShareID(rawValue: text)
        }
        guard (request.after ?? 0) >= 0 else { return .failure(.badRequest, "after must be >= 0") }
        do {
            guard let page = try await journal.track(share, after: request.after ?? 0, limit: TrackReply.pageSize) else {
                return .failure(.notFound, share.map { "no track of share \($0.rawValue) (never recorded, or older than track.retention)" }
                                    ?? "no track recorded yet")
            }
            var response = ControlResponse.success()
            response.track = TrackReply(page)
            return response
        } catch {
            return .failure(.internal, "\(error)")
        }
    }

    /// 8-4-4-4-12 lower-case hexadecimal digits.
    private static func isShareID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }
}
