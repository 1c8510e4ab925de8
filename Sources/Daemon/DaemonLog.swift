import SystemIO

/// The daemon's log: one line per event on standard error (journald adds the time and unit).
package struct DaemonLog: Sendable {
    package init() {}

    package func callAsFunction(_ message: String) {
        writeErrorLine(program: "livelocd", message)
    }
}
