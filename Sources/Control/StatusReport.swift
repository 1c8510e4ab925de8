/// The answer to `status`.
package struct StatusReport: Codable, Sendable, Equatable {
    package var source: SourceStatus
    /// The active share, absent when none.
    package var share: ShareSummary?
    /// Standard output and each queued destination (`sinks` on the wire, its name before it was a
    /// destination too).
    package var destinations: [DestinationSummary]
    /// The share's clock (the log's timeline for a replay), ISO 8601.
    package var clock: String
    /// Where that clock's UTC comes from, for a live source; absent for a replay.
    package var clockSource: ClockSummary?
    /// Why the journal cannot be written, while it cannot (a full disk); absent when all is well.
    package var journal: String?
    /// The share that ended last, while none is active; absent when none ended since livelocd started.
    package var ended: EndedShareSummary?
    /// Events queued for destinations not configured now, one line per receiver ("32 event(s) for
    /// webhook http://…/a wait in the journal"); absent when there are none.
    package var leftovers: [String]?

    package init(source: SourceStatus, share: ShareSummary?, destinations: [DestinationSummary], clock: String, journal: String? = nil,
                 ended: EndedShareSummary? = nil,
                leftovers: [String]? = nil, clockSource: ClockSummary? = nil) {
        self.source = source
        self.share = share
        self.destinations = destinations
        self.clock = clock
        self.journal = journal
        self.ended = ended
        self.leftovers = leftovers
        self.clockSource = clockSource
    }

    private enum CodingKeys: String, CodingKey {
        case source, share, destinations = "sinks", clock, clockSource, journal, ended, leftovers
    }
}

extension StatusReport {
    /// Takes out what only an authorized caller may see: the share links, which hold their keys.
    package mutating func removeSecrets() {
        for index in destinations.indices { destinations[index].shareLink = nil }
    }
}
