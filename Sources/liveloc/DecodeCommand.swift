/// `liveloc decode`: not built yet.
enum DecodeCommand: Command {
    static let name = "decode"
    static let summary = "(not built yet)"
    static let help = "usage: liveloc decode (not built yet)"
    static func run(_ words: [String]) async throws -> Int32 {
        throw CommandFailure("not built yet")
    }
}
