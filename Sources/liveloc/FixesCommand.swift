/// `liveloc fixes`: not built yet.
enum FixesCommand: Command {
    static let name = "fixes"
    static let summary = "(not built yet)"
    static let help = "usage: liveloc fixes (not built yet)"
    static func run(_ words: [String]) async throws -> Int32 {
        throw CommandFailure("not built yet")
    }
}
