import Delivery
import Journal
import LiveLocation
import SystemIO

/// The one place a share's parts are put together: the broadcaster, the journal, standard output,
/// one runner per destination and the dispatcher that feeds them, for livelocd, `liveloc share`,
/// bench-latency and webhook-bench alike. Each says what it wants (`Plan`); the order of building
/// and the wiring between the parts are here only. The services that run them, in their one order
/// of shutdown, come from `services` (ShareServices.swift), for livelocd (until a signal) and
/// `liveloc share` (until its share's `ended`) alike.
package struct SharePipeline: Sendable {
    /// Where the journal is and how it is kept.
    package struct JournalPlan: Sendable {
        package var directory: String
        package var leftovers: LeftoverPolicy
        /// An earlier version's webhook outbox to take over.
        package var legacyOutbox: String?
        /// How long each share's track is kept (nil: none).
        package var trackRetention: Duration?
        /// How long an update may wait for a sync that carries several (nil: each batch is synced).
        package var syncDelay: Duration?

        package init(directory: String, leftovers: LeftoverPolicy = .keep, legacyOutbox: String? = nil,
                     trackRetention: Duration? = nil, syncDelay: Duration? = nil) {
            self.syncDelay = syncDelay
            self.directory = directory
            self.leftovers = leftovers
            self.legacyOutbox = legacyOutbox
            self.trackRetention = trackRetention
        }
    }

    /// What to build.
    package struct Plan: Sendable {
        package var clock: any ShareClock
        package var throttle = Throttle.off
        package var privacy = PrivacyFilter.off
        package var battery: (any BatteryGauge)?
        /// The destinations, built (each gets a runner and a queue in the journal).
        package var destinations: [any Destination] = []
        /// The journal; nil for none (only without destinations: their queues are in it).
        package var journal: JournalPlan?
        /// Events as JSON lines on standard output, and how; nil for none.
        package var stdout: StdoutWriter.Mode?
        /// Whether a closed standard output (a reader gone) stops the share.
        package var stdoutClosedStopsShare = false
        /// The runners' wait after a failed attempt.
        package var retry = RetryPolicy()
        /// The process's logger: every part logs through it, and through its one rate limit the
        /// lines that can repeat per event (destination refusals; the daemon's control server too).
        package var log: Logger
        /// Called with each batch's events once they were handed on (and the broadcaster they came from).
        package var onEvents: @Sendable (LiveLocationBroadcaster, [ShareEvent]) async -> Void = { _, _ in }

        package init(clock: any ShareClock, log: Logger) {
            self.clock = clock
            self.log = log
        }
    }

    package let broadcaster: LiveLocationBroadcaster
    package let journal: Journal?
    package let stdout: StdoutWriter?
    package let runners: [DestinationRunner]
    package let dispatcher: ShareDispatcher
    /// The process's logger (`Plan.log`).
    package let log: Logger

    /// Builds the parts: the journal first (what cannot be opened stops everything before a thread
    /// starts), then the broadcaster, standard output, the runners and the dispatcher.
    /// - Throws: `JournalError`, or `SystemError` for standard output's writer thread.
    package init(_ plan: Plan) async throws {
        precondition(plan.journal != nil || plan.destinations.isEmpty, "destinations queue their events in the journal")
        journal = try plan.journal.map { journal throws(JournalError) in
            try Journal(directory: journal.directory,
                        destinations: Dictionary(uniqueKeysWithValues: plan.destinations.map { ($0.identity, $0.queue) }),
                        leftovers: journal.leftovers, legacyOutbox: journal.legacyOutbox,
                        trackRetention: journal.trackRetention, log: plan.log)
        }
        let log = plan.log
        self.log = log
        let broadcaster = LiveLocationBroadcaster(clock: plan.clock, throttle: plan.throttle, privacy: plan.privacy,
                                                  recordsTrack: plan.journal?.trackRetention != nil, battery: plan.battery,
                                                  onTimesCorrected: { log.timesCorrected($0) })
        self.broadcaster = broadcaster
        if let mode = plan.stdout {
            let stopsShare = plan.stdoutClosedStopsShare
            let onClosed: @Sendable () -> Void = { if stopsShare { Task { await broadcaster.stop() } } }
            do {
                stdout = try StdoutWriter(mode: mode, log: plan.log, onClosed: onClosed)
            } catch {
                await journal?.close()
                throw error
            }
        } else {
            stdout = nil
        }
        let journal = journal
        runners = journal.map { journal in
            plan.destinations.map { DestinationRunner(destination: $0, journal: journal, retry: plan.retry, log: plan.log) }
        } ?? []
        dispatcher = ShareDispatcher(journal: journal, runners: runners, stdout: stdout, syncDelay: plan.journal?.syncDelay,
                                     log: plan.log) { events in
            await plan.onEvents(broadcaster, events)
        }
    }
}
