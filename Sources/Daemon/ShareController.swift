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
            log.limited(.notice, key: "share started", window: Logger.humanPaceWindow,
                        "share \(share.id) started for \(duration.rawValue), until \(share.expiresAt)") { count, window in
                "\(count.thousandsSeparated) more shares started in the last \(window.shortText)"
            }
            await onChange()
            return .success(share: ShareSummary(share, now: clock.now, privacy: broadcaster.privacy))
        case .stop:
            if let refusal = journalRefusal { return refusal }
            let (stopped, input) = await broadcaster.stop()
            if let refusal = await refusalUnlessCommitted(input) { return refusal }
            if let stopped {
                log.limited(.notice, key: "share stopped", window: Logger.humanPaceWindow, "share \(stopped.id) stopped") { count, window in
                    "\(count.thousandsSeparated) more shares stopped in the last \(window.shortText)"
                }
            }
            await onChange()
            return .success(share: stopped.map { ShareSummary($0, now: nil, privacy: broadcaster.privacy) })
        case .extend(let amount):
            return await extend(by: amount)
        case .status:
            return .success(status: await status())
        case .track(let share, let after):
            return await TrackRequest.answer(share: share, after: after, journal: journal)
        }
    }

    /// Moves the active share's end; answered once the batch with the new end is committed, so that
    /// a restart keeps it. Refused in one line when no share is active or its time is up.
    private func extend(by amount: ShareDuration) async -> ControlResponse {
        if let refusal = journalRefusal { return refusal }
        let (outcome, input) = await broadcaster.extend(by: amount)
        switch outcome {
        case .noActiveShare:
            // The share that just ended may still be delivering its final update: say which it was.
            let ended = await broadcaster.lastEndedShare.map { " (share \($0.id) ended at \($0.endedAt), \($0.reason.rawValue))" } ?? ""
            return .failure(.noShare, "no active share to extend\(ended); start one with 'liveloc start --duration 15m|1h|8h'")
        case .ending(let id):
            if let refusal = await refusalUnlessCommitted(input) { return refusal }
            await onChange()
            return .failure(.ending, "share \(id) is ending (its time is up): start a new share instead")
        case .extended(let share, let previous, let capped):
            if let refusal = await refusalUnlessCommitted(input) { return refusal }
            log.limited(.notice, key: "share extended", window: Logger.humanPaceWindow,
                        "share \(share.id) extended by \(amount.rawValue), until \(share.expiresAt)"
                            + (capped ? " (capped at \(ShareDuration.longest.rawValue) from now)" : "")) { count, window in
                "\(count.thousandsSeparated) more share extensions in the last \(window.shortText)"
            }
            await onChange()
            return .success(share: ShareSummary(share, now: clock.now, privacy: broadcaster.privacy),
                            extended: ExtensionSummary(previousExpiresAt: previous, capped: capped))
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
        let active = await broadcaster.activeShareAndTime
        let share = active?.share
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
        return StatusReport(source: source.status, share: active.map { ShareSummary($0.share, now: $0.now, privacy: broadcaster.privacy) },
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
