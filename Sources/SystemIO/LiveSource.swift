/// The skeleton of a live source (gpsd, a serial receiver): its sessions one after another, each on
/// a thread of its own (`LiveSession`), with a wait between them, until the calling task is
/// cancelled. The source's own parts are the hooks: how a session is made (it reports what it
/// reads through its events), the wait (the source's backoff), what an ended session means for
/// its state and its log, and what it does before the next attempt.
package enum LiveSource {
    /// Runs sessions until the calling task is cancelled or a session ends cancelled.
    /// - Parameters:
    ///   - makeSession: the next session.
    ///   - delay: the wait before the next attempt after a session; `receivedData` says the
    ///     receiver sent something in it (the backoff then starts afresh).
    ///   - ended: after a session that ended by itself, with the wait that follows: the source's
    ///     state and log line.
    ///   - retrying: after the wait, before the next session.
    package static func run<Session: LiveSession>(
        makeSession: () -> Session,
        delay: (_ receivedData: Bool) -> Duration,
        ended: (LiveSessionOutcome<Session.End>, _ retryIn: Duration) -> Void,
        retrying: () -> Void = {}
    ) async {
        while !Task.isCancelled {
            let outcome = await makeSession().run()
            if Task.isCancelled || outcome.isCancelled { return }
            let wait = delay(outcome.receivedData)
            ended(outcome, wait)
            do { try await Task.sleep(for: wait) } catch { return }
            retrying()
        }
    }
}

/// The last failure a live source logged, so that failing again for the same reason is not logged
/// again (a receiver absent for an hour is one line), while a new reason, or any failure after the
/// source was working (`forget`), is.
package struct RepeatedFailure: Sendable {
    private var last: String?

    package init() {}

    /// Whether `reason` differs from the last one recorded; records it.
    package mutating func isNews(_ reason: String) -> Bool {
        defer { last = reason }
        return reason != last
    }

    /// The next failure is news whatever its reason.
    package mutating func forget() { last = nil }
}
