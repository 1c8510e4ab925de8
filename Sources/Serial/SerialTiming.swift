import Retry

/// The serial source's waits. The defaults suit receivers; tests shorten them.
package struct SerialTiming: Sendable {
    /// How long `automatic` listens at one rate for valid NMEA before trying the next. A receiver
    /// sends at least one epoch a second, so 2.5 s sees two sentences or more at the right rate.
    package var probeWindow: Duration = .milliseconds(2500)
    /// A pause in the bytes this long ends a burst: the epoch in progress is reported then when it
    /// is complete, rather than when the next one starts a second later.
    package var burstGap: Duration = .milliseconds(100)
    /// With `automatic`, no valid sentence for this long means the receiver's rate changed: the
    /// rates are tried again.
    package var silence: Duration = .seconds(10)
    /// Waits between attempts to open the device.
    package var reopenBackoff = Backoff(initial: .milliseconds(250), cap: .seconds(4))

    package init() {}
}
