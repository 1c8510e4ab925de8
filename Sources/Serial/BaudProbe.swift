import NMEA

/// Tells whether bytes read at some rate are NMEA: at a wrong rate a UART delivers garbage, in
/// which a checksummed sentence (`$…*hh` with the right sum) practically never appears; at the
/// right one every sentence checks. The probe counts checksummed sentences through the same framer
/// as the decoder and recognises the rate after `required` of them.
package struct BaudProbe: Sendable {
    /// Checksummed sentences needed (two, so that one lucky line of garbage is not enough).
    package let required: Int
    package private(set) var checksummedSentences = 0
    private var framer = NMEAFramer()

    package init(required: Int = 2) {
        self.required = required
    }

    package var recognized: Bool { checksummedSentences >= required }

    package mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        var count = 0
        framer.decode(bytes) { sentence in
            if sentence.hasChecksum { count += 1 }
        }
        checksummedSentences += count
    }
}
