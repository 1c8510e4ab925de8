import Foundation

/// The sanitizer the test bundle and the executables beside it were built with, when
/// scripts/sanitizers runs them (it sets LIVELOCD_SANITIZER to `address` or `thread`).
public enum Sanitizer {
    public static let current: String? = ProcessInfo.processInfo.environment["LIVELOCD_SANITIZER"]

    /// Whether this is ThreadSanitizer's run: a test that runs on one thread with nothing shared
    /// gives it nothing to find, at 5 to 10 times the time (make test and AddressSanitizer's run
    /// still run it whole).
    public static var isThread: Bool { current == "thread" }
}
