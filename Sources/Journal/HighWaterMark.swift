import LiveLocation
import SystemIO

/// What has left the process, kept outside SQLite's files: `journal.high-water` in the state
/// directory (issue 29: a WAL overwritten while livelocd ran was found damaged, SQLite ignored its
/// frames at the next start, and the share resumed from the last checkpoint: 68 seqs that had been
/// delivered were issued again with other content).
///
/// Written after every commit that carries events, before anything of it is handed on (stdout, the
/// destinations): the newest event's position, that event's share and seq, and the share open
/// after it. Not synced: it survives a crash, a SIGKILL or a damaged WAL (the page cache keeps it),
/// and a power cut cannot take a synced WAL frame back, so the WAL is behind it only when it lost
/// frames to damage. At open, a journal whose newest event is older than the mark has lost events
/// that left the process: the share goes on from the mark's state, past every seq it gave
/// (`Journal.reconcile`). The mark also carries the damage found while the journal was in use
/// (synced): the next start moves that journal aside even when SQLite, ignoring a WAL whose
/// checksums fail, would find nothing wrong.
struct HighWaterMark: Equatable {
    /// The newest event committed and handed on: its position in the events table (0: none yet).
    var position: Int64 = 0
    /// That event's share and seq.
    var newestShare: ShareID?
    var newestSeq = 0
    /// The share open after it (nil: none).
    var share: ShareSnapshot?
    /// The damage found while the journal was in use, in SQLite's words; nil while it is sound.
    var damage: String?

    private static let header = "livelocd journal high-water mark 1"

    /// The mark as text: one field a line, then a checksum of them (a torn or foreign file is read
    /// as no mark). Later lines (of a longer mark written before) are ignored.
    var encoded: [UInt8] {
        var text = Self.header + "\n"
        text += "position \(position)\n"
        if let newestShare { text += "newest \(newestSeq) \(newestShare.rawValue.filter { $0 != "\n" })\n" }
        if let share { text += "share \(hex(BinaryRecord.encode(share)))\n" }
        if let damage { text += "damage \(String(damage.map { $0 == "\n" ? " " : $0 }.prefix(400)))\n" }
        var bytes = Array(text.utf8)
        bytes += Array("check \(String(Self.checksum(bytes), radix: 16))\n".utf8)
        return bytes
    }

    /// The mark in `bytes`, or nil when they hold none (empty, torn, or not a mark).
    init?(decoding bytes: [UInt8]) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == Self.header else { return nil }
        var checked = 0
        var fields: [(key: Substring, value: Substring)] = []
        while let line = lines.popFirst() {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("check ") {
                guard UInt64(text.dropFirst(6), radix: 16) == Self.checksum(Array(bytes[..<checked])) else { return nil }
                for (key, value) in fields.dropFirst() {
                    switch key {
                    case "position": position = Int64(value) ?? 0
                    case "newest":
                        let parts = value.split(separator: " ", maxSplits: 1)
                        guard parts.count == 2, let seq = Int(parts[0]) else { return nil }
                        (newestSeq, newestShare) = (seq, ShareID(rawValue: String(parts[1])))
                    case "share":
                        guard let record = unhex(value), let snapshot = BinaryRecord.decodeShare(record) else { return nil }
                        share = snapshot
                    case "damage": damage = String(value)
                    default: break
                    }
                }
                return
            }
            checked += line.count + 1
            let key = text.prefix { $0 != " " }
            fields.append((key, text.dropFirst(key.count + 1)))
        }
        return nil
    }

    init() {}

    /// FNV-1a, 64 bits.
    private static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

/// `journal.high-water`, open for the journal's life (mode 0600).
final class HighWaterMarkFile {
    let path: String
    private let descriptor: FileDescriptor
    /// The file's length: each mark is padded to it (at least `slotBytes`), so that a shorter mark
    /// leaves nothing of a longer one behind (a share's last position after it ended).
    private var length: Int
    static let slotBytes = 1024

    /// Opens (or creates) the mark of the journal in `directory`.
    /// - Throws: `SystemError` when it cannot be opened.
    init(directory: String) throws(SystemError) {
        path = directory + "/journal.high-water"
        let existed = FileSystem.exists(path)
        descriptor = try FileDescriptor.openFile(path, FileOpening(.readWrite, creatingWith: 0o600))
        length = Int((try? descriptor.status(path: path).size) ?? 0)
        if !existed { try? syncDirectory(containing: path) }
    }

    deinit { descriptor.close() }

    /// The mark the file holds; nil when it holds none (new, or torn by a power cut).
    func read() -> HighWaterMark? {
        guard let bytes = try? FileDescriptor.openForReading(path) else { return nil }
        defer { bytes.close() }
        return (try? bytes.readToEnd(limit: 1 << 16, path: path)).flatMap(HighWaterMark.init(decoding:))
    }

    /// Writes `mark` over the one before; `sync`ed when it must survive a power cut (damage found,
    /// or cleared once the damaged journal is moved aside).
    /// - Throws: `SystemError` when it cannot be written.
    func write(_ mark: HighWaterMark, sync: Bool = false) throws(SystemError) {
        var bytes = mark.encoded
        length = max(length, bytes.count, Self.slotBytes)
        bytes += [UInt8](repeating: UInt8(ascii: "\n"), count: length - bytes.count)
        try descriptor.write(bytes, at: 0, path: path)
        if sync { try descriptor.syncData(path: path) }
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}

private func unhex(_ text: Substring) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
        guard let high = UInt8(String(decoding: utf8[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(high)
        index += 2
    }
    return bytes
}

extension Journal {
    /// Writes `highWater` to its file (`sync`ed when asked). A failure is said, rate-limited: the
    /// commit stands (it is on disk); only a damaged WAL at the next start would then go unnoticed.
    func writeHighWaterMark(sync: Bool = false) {
        guard let highWaterFile else { return }
        do { try highWaterFile.write(highWater, sync: sync) } catch {
            let path = highWaterFile.path
            log.limited(.warning, key: "journal high-water", "journal: cannot write \(path): \(error); "
                        + "a damaged WAL at the next start could then give seqs that left the process again") { count, window in
                "journal: \(count.thousandsSeparated) more failed writes of \(path) in the last \(window.shortText)"
            }
        }
    }
}
