#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD

/// One viewer's Server-Sent Events stream: MHD calls `read` on the connection's thread whenever it
/// can send; `read` waits on the share for the next event (or the heartbeat's time).
final class ViewerStream: @unchecked Sendable {
    private let store: RelayStore
    private let id: String
    private var after: UInt64
    /// The store's count of the share's heartbeats this viewer has had.
    private var alive: UInt64 = 0
    private let heartbeatSeconds: Int
    private var pending: [UInt8]
    private var sent = 0
    private var finished = false

    init(store: RelayStore, id: String, after: UInt64, heartbeatSeconds: Int) {
        self.store = store
        self.id = id
        self.after = after
        self.heartbeatSeconds = heartbeatSeconds
        pending = Array("retry: 3000\n: livelocd-relay\n\n".utf8)
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        if sent == pending.count {
            pending.removeAll(keepingCapacity: true)
            sent = 0
            if finished { return cmhd_end_of_stream() }
            switch store.next(id, after: after, alive: &alive, waitSeconds: heartbeatSeconds) {
            case .frames(let frames, let lastSeq, let isFinished):
                pending = frames
                after = lastSeq
                finished = isFinished
                if pending.isEmpty { return cmhd_end_of_stream() }
            case .heartbeat:
                pending = Array(": heartbeat\n\n".utf8)
            case .closed:
                return cmhd_end_of_stream()
            }
        }
        let count = min(max, pending.count - sent)
        pending.withUnsafeBytes { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + sent, byteCount: count)
        }
        sent += count
        return count
    }
}
