import Foundation

/// The sanitizer the test bundle and the executables beside it were built with, when
/// scripts/sanitizers runs them (it sets LIVELOCD_SANITIZER to `address` or `thread`).
public enum Sanitizer {
    public static let current: String? = ProcessInfo.processInfo.environment["LIVELOCD_SANITIZER"]
}
