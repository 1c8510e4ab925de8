/// `liveloc share`: not built yet.
enum ShareCommand: Command {
    static let name = "share"
    static let summary = "(not built yet)"
    static let help = "usage: liveloc share (not built yet)"
    static func run(_ words: [String]) async throws -> Int32 {
        throw CommandFailure("not built yet")
    }
}
