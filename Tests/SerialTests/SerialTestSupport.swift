import Foundation
import LiveLocation
import Locking

/// A stable name for the receiver, like `/dev/serial/by-id/usb-…`: a symbolic link that is removed
/// when the receiver is unplugged and made again, to a new pty, when it is plugged back in. Tests
/// remove it when they end: pty numbers are reused, and a reader left over from a crashed run
/// (root ignores TIOCEXCL) would otherwise open a later test's pty through it and take its bytes.
struct DeviceLink {
    let path: String

    init(in directory: URL) {
        path = directory.appendingPathComponent("usb-Fake_GNSS_Receiver-if00").path
    }

    func point(to target: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A value shared between a test and the tasks it starts.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Locked<Value>

    init(_ value: Value) { storage = Locked(value) }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}

/// Fixes collected from a source's sequence by a task of their own.
final class CollectedFixes: Sendable {
    private let fixes = Locked<[Fix]>([])

    func append(_ fix: Fix) { fixes.withLock { $0.append(fix) } }

    var all: [Fix] { fixes.withLock { $0 } }
    var count: Int { fixes.withLock { $0.count } }
}

