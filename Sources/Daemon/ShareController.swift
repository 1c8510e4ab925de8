import Control
import Journal
import LiveLocation
import Pipeline
import SystemIO

/// What the control protocol's operations do to the daemon: start and stop shares, answered only
/// once the batch they caused is committed to the journal, and report the status.
package struct ShareController: Sendable {
    let broadcaster: LiveLocationBroadcaster
    let clock: any ShareClock
    let source: SourceMonitor
    let dispatcher: ShareDispatcher
    let stdout: StdoutWriter?
    let log: Logger
    /// Called after a start or stop, e.g. to update systemd's status line.
    let onChange: @Sendable () async -> Void
    /// Where the shares' tracks are kept (`track`).
    var journal: Journal? = nil

    package func handle(_ request: ControlRequest) async -> ControlResponse {
        switch request {
        case .start(let duration, let callerID):
            if let refusal = journalRefusal { return refusal }
            let sourceHasEnded = await broadcaster.sourceHasEnded
            if sourceHasEnded || source.status.state == .ended {
                return .failure(.sourceEnded, "the source has ended (the replayed log is over), so a share would never get a position; "
                                 + "restart livelocd to replay it again, or set replay.loop = true")
            }
            if let callerID, let refusal = await refusalUnlessUnused(callerID) { return refusal }
            let (share, input) = await broadcaster.start(duration, id: callerID ?? .random())
            if let refusal = await refusalUnlessCommitted(input) { return refusal }
            log.notice("share \(share.id) started for \(duration.rawValue), until \(share.expiresAt)")
            await onChange()
            return .success(share: ShareSummary(share, now: clock.now, privacy: broadcaster.privacy))
        case .stop:
            if let refusal = journalRefusal { return refusal }
            let (stopped, input) = await broadcaster.stop()
            if let refusal = await refusalUnlessCommitted(input) { return refusal }
            if let stopped { log.notice("share \(stopped.id) stopped") }
            await onChange()
            return .success(share: stopped.map { ShareSummary($0, now: nil, privacy: broadcaster.privacy) })
        case .status:
            return .success(status: await status())
        case .track(let share, let after):
            return await TrackRequest.answer(share: share, after: after, journal: journal)
        }
    }

    /// A journal that cannot be written refuses new work instead of promising what it cannot keep.
    private var journalRefusal: ControlResponse? {
        dispatcher.journalFailure.map { .failure(.internal, "\($0)") }
    }

    /// Nil when `id` is taken for the new share; the `id-used` reply when a share of the journal
    /// already had it (an event id `evt_<id>_<seq>` must name one content forever: receivers
    /// deduplicate on it, and Telegram's state would still point at the old share's message).
    private func refusalUnlessUnused(_ id: ShareID) async -> ControlResponse? {
        guard let journal else { return nil }
        do {
            if try await journal.takeShareID(id) { return nil }
        } catch {
            return .failure(.internal, "\(error)")
        }
        return .failure(.idUsed, Journal.refusal(reusing: id))
    }

    /// Nil once the batch holding `input` is committed; the `internal` reply when it is not in time.
    private func refusalUnlessCommitted(_ input: UInt64) async -> ControlResponse? {
        do { try await dispatcher.waitUntilCommitted(input) } catch {
            return .failure(.internal, "not saved yet (\(error)); it takes effect once the journal can be written")
        }
        return nil
    }

    package func status() async -> StatusReport {
        let share = await broadcaster.activeShare
        let now = clock.now
        var summaries: [DestinationSummary] = []
        if let stdout {
            let counts = stdout.counts
            summaries.append(DestinationSummary(name: "stdout", delivered: counts.written, failed: counts.dropped,
                                    lastError: stdout.isClosed ? "the reader went away" : (counts.dropped > 0 ? "reader too slow: \(counts.dropped) event(s) dropped" : nil)))
        }
        for destination in await dispatcher.destinationStatus(activeShare: share?.id) {
            var summary = DestinationSummary(name: destination.name, delivered: destination.acknowledged,
                                  failed: destination.failedAttempts, lastError: destination.lastError)
            summary.delivery = .init(state: destination.state, pending: destination.pending,
                                  acknowledged: destination.acknowledged, dropped: destination.dropped,
                                  lastError: destination.lastError, coalesces: destination.keepsLatestOnly)
            summary.link = destination.link.map(LinkSummary.init)
            summary.shareLink = destination.shareLink
            summaries.append(summary)
        }
        return StatusReport(source: source.status, share: share.map { ShareSummary($0, now: now, privacy: broadcaster.privacy) },
                            destinations: summaries, clock: now.iso8601,
                            journal: dispatcher.journalFailure.map { "\($0)" },
                            ended: share == nil ? await broadcaster.lastEndedShare.map(EndedShareSummary.init) : nil,
                            leftovers: await dispatcher.leftovers().map(\.description).nilIfEmpty,
                            clockSource: clock.utcSource.map(ClockSummary.init))
    }
}

private extension Array {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
