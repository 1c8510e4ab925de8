import LiveLocation

/// The decoding half of the decoder: takes framed sentences (`NMEAFramer`), dispatches each known
/// type to its handler (`SentenceType.decode`), and hands the handler's report and mask to the
/// `EpochAssembler`, which decides when a fix is complete.
///
/// Every talker is accepted; proprietary (`$P…`, but Garmin's PGRMZ) and unknown sentence types are
/// counted as ignored.
package struct NMEASentenceDecoder: Sendable {
    /// Sentences of a known type.
    package private(set) var sentences = 0
    /// Well-formed sentences of a proprietary or unhandled type.
    package private(set) var ignored = 0
    /// Sentences without an address (`$,…`): malformed.
    package private(set) var malformed = 0
    /// Fixes reported.
    package var fixes: Int { assembler.reportedFixes }
    private var assembler = EpochAssembler()

    package init() {}

    /// Decodes one framed sentence; calls `onFix` for each fix it completes.
    @inline(__always)
    package mutating func decode(_ sentence: NMEASentence, onFix: (Fix) -> Void) {
        let base = sentence.start
        let end = sentence.count
        var comma = 1
        while comma < end && base[comma] != UInt8(ascii: ",") { comma += 1 }
        let addressCount = comma - 1
        guard addressCount >= 1 else {
            malformed += 1
            return
        }
        guard let type = SentenceType(address: base + 1, count: addressCount) else {
            ignored += 1
            return
        }
        sentences += 1
        var fields = FieldCursor(base: base, start: comma + 1, end: end)
        var report = SentenceReport()
        report.talker = base[2]
        let mask = type.decode(&fields, into: &report)
        assembler.apply(type, report, mask, onFix: onFix)
    }

    /// A live source paused after a burst: reports the epoch in progress if it is complete.
    package mutating func flushCompletedEpoch(onFix: (Fix) -> Void) {
        assembler.flushCompleted(onFix: onFix)
    }

    /// End of input: reports the last epoch when it is complete.
    package mutating func finish(onFix: (Fix) -> Void) {
        assembler.finish(onFix: onFix)
    }
}
