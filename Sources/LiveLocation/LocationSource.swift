/// Where fixes come from: gpsd, a replayed NMEA log, or anything else that yields `Fix` values.
///
/// The broadcaster knows only this protocol. A source's sequence yields fixes in time order and
/// finishes when the source has nothing more to give (a replayed log ran out); a live source such as
/// gpsd never finishes by itself, it reconnects. Cancelling the consuming task stops the source.
public protocol LocationSource: Sendable {
    associatedtype Fixes: AsyncSequence, Sendable where Fixes.Element == Fix

    /// The source's fixes, in time order.
    func fixes() -> Fixes
}
