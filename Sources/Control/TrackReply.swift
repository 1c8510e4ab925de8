import LiveLocation

/// The answer to `track`: one page of a share's track, in order (true positions, as accepted).
package struct TrackReply: Codable, Sendable, Equatable {
    package var shareId: String
    package var fixes: [Fix]
    /// Pass as `after` for the next page; absent on the last page.
    package var next: Int64?

    /// At most this many fixes per page (a page is a few hundred kilobytes of JSON).
    package static let pageSize = 1000

    package init(shareId: String, fixes: [Fix], next: Int64?) {
        self.shareId = shareId
        self.fixes = fixes
        self.next = next
    }
}
