/// `liveloc stop`: not built yet.
enum StopCommand: Command {
    static let name = "stop"
    static let summary = "(not built yet)"
    static let help = "usage: liveloc stop (not built yet)"
    static func run(_ words: [String]) async throws -> Int32 {
        throw CommandFailure("not built yet")
    }
}
