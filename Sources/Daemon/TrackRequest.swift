import Control
import Journal
import LiveLocation

/// The control protocol's `track` operation: one page of a share's track from the journal.
enum TrackRequest {
    static func answer(share: ShareID?, after: Int64, journal: Journal?) async -> ControlResponse {
        guard let journal, journal.trackRetention != nil else {
            return .failure(.notFound, "livelocd keeps no tracks (track.retention = off)")
        }
        do {
            guard let page = try await journal.track(share, after: after, limit: TrackReply.pageSize) else {
                return .failure(.notFound, share.map { "no track of share \($0.rawValue) (never recorded, or older than track.retention)" }
                                    ?? "no track recorded yet")
            }
            return .success(track: TrackReply(shareId: page.shareID.rawValue, fixes: page.fixes, next: page.next))
        } catch {
            return .failure(.internal, "\(error)")
        }
    }
}
