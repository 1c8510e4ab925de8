/// One framed NMEA 0183 sentence, as `NMEAFramer` hands it on: from its `$` up to its checksum
/// field (excluded), the checksum already verified when there was one.
///
/// A view into the framer's input: valid only during the callback it is passed to.
package struct NMEASentence {
    /// The `$`.
    package let start: UnsafePointer<UInt8>
    /// Bytes from the `$` up to the `*` of the checksum field (or to the end of the sentence when it
    /// has none), trailing white space removed.
    package let count: Int
    /// Whether the sentence carried a checksum field (always verified when it did).
    package let hasChecksum: Bool

    /// The sentence's bytes, `$` first.
    package var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }
}
