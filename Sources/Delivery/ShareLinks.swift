import LiveLocation
import Locking

/// The links viewers open for the shares (the `link` destination's `RELAY/s/ID#KEY`), for the
/// destinations that pass them on (Home Assistant's tracker attributes, `share_link`): asks the
/// destinations it is attached to once they are built. A link holds its share's key: only a
/// destination whose far end may open the share gets this.
///
/// It holds the destinations weakly: Home Assistant's destination holds this object, so a strong
/// list that includes it kept both alive past the daemon's end (LeakSanitizer's report). A
/// destination that makes links is therefore a class (the `link` destination is); a value-type
/// destination is not asked.
package final class ShareLinks: Sendable, Equatable {
    /// A destination held without keeping it alive (destinations are Sendable; the reference is only
    /// read under the lock).
    private struct Held: @unchecked Sendable {
        weak var destination: AnyObject?
    }
    private let destinations = Locked<[Held]>([])

    package init() {}

    /// The destinations to ask (the daemon's, once built).
    package func attach(_ destinations: [any Destination]) {
        let held = destinations.compactMap { destination in
            type(of: destination) is AnyClass ? Held(destination: destination as AnyObject) : nil
        }
        self.destinations.withLock { $0 = held }
    }

    /// The share's link once a destination made it (at the share's first event posted), nil before
    /// or without a `link` destination.
    package func link(for share: ShareID) -> String? {
        for held in destinations.withLock({ $0 }) {
            if let link = (held.destination as? any Destination)?.shareLink(for: share) { return link }
        }
        return nil
    }

    /// The same object (what it answers changes as links are made).
    package static func == (lhs: ShareLinks, rhs: ShareLinks) -> Bool { lhs === rhs }
}
