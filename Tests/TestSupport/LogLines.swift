import Locking

/// Log lines a component under test wrote (through its `log` closure), from any thread.
public final class LogLines: Sendable {
    private let lines = Locked<[String]>([])

    public init() {}

    public func append(_ line: String) { lines.withLock { $0.append(line) } }
    public var all: [String] { lines.withLock { $0 } }
    public func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
}
