/// `liveloc status`: not built yet.
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "(not built yet)"
    static let help = "usage: liveloc status (not built yet)"
    static func run(_ words: [String]) async throws -> Int32 {
        throw CommandFailure("not built yet")
    }
}
