import LiveLocation
import Locking

/// The links viewers open for the shares (the `link` destination's `RELAY/s/ID#KEY`), for the
/// destinations that pass them on (Home Assistant's tracker attributes, `share_link`): asks the
/// destinations it is attached to once they are built. A link holds its share's key: only a
/// destination whose far end may open the share gets this.
package final class ShareLinks: Sendable, Equatable {
    private let destinations = Locked<[any Destination]>([])

    package init() {}

    /// The destinations to ask (the daemon's, once built).
    package func attach(_ destinations: [any Destination]) {
        self.destinations.withLock { $0 = destinations }
    }

    /// The share's link once a destination made it (at the share's first event posted), nil before
    /// or without a `link` destination.
    package func link(for share: ShareID) -> String? {
        for destination in destinations.withLock({ $0 }) {
            if let link = destination.shareLink(for: share) { return link }
        }
        return nil
    }

    /// The same object (what it answers changes as links are made).
    package static func == (lhs: ShareLinks, rhs: ShareLinks) -> Bool { lhs === rhs }
}
