/// `liveloc start`: not built yet.
enum StartCommand: Command {
    static let name = "start"
    static let summary = "(not built yet)"
    static let help = "usage: liveloc start (not built yet)"
    static func run(_ words: [String]) async throws -> Int32 {
        throw CommandFailure("not built yet")
    }
}
