import Foundation
import Testing
import TestSupport

/// The `LiveLocation` library product can be used by another package that depends on livelocd by
/// version: SwiftPM refuses such a dependency when a target the product builds has unsafe flags
/// (the release daemon's `-function-sections` and linker flags stay on the other targets).
@Suite struct LibraryProductTests {
    /// The manifest as SwiftPM evaluates it (`swift package dump-package`), in a scratch directory of
    /// its own so that it does not wait for the lock of the build that runs these tests.
    private func manifest() async throws -> [String: Any] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-package-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["swift", "package", "--package-path", Paths.packageRoot.path,
                                           "--scratch-path", scratch.path, "dump-package"],
                                          timeout: .seconds(120))
        try #require(result.status == 0, "swift package dump-package: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func noTargetOfTheLibraryProductHasUnsafeFlags() async throws {
        let manifest = try await manifest()
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0["name"] as? String ?? "", $0) })
        let products = try #require(manifest["products"] as? [[String: Any]])
        let product = try #require(products.first { $0["name"] as? String == "LiveLocation" })
        // The product's targets and every target they depend on, as SwiftPM builds them for a dependent.
        var pending = try #require(product["targets"] as? [String])
        var built: Set<String> = []
        while let name = pending.popLast() {
            guard built.insert(name).inserted, let target = byName[name] else { continue }
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                for kind in ["byName", "target"] {
                    if let item = dependency[kind] as? [Any], let dependencyName = item.first as? String {
                        pending.append(dependencyName)
                    }
                }
            }
        }
        #expect(built.isSuperset(of: ["LiveLocation", "Locking"]))
        for name in built.sorted() {
            let settings = byName[name]?["settings"] as? [[String: Any]] ?? []
            let unsafe = settings.filter { ($0["kind"] as? [String: Any])?["unsafeFlags"] != nil }
            #expect(unsafe.isEmpty, "target \(name) of the LiveLocation product has unsafe flags: \(unsafe)")
        }
        // The check would see them: the release daemon's own flags are unsafe ones.
        let daemonSettings = byName["livelocd"]?["settings"] as? [[String: Any]] ?? []
        #expect(daemonSettings.contains { ($0["kind"] as? [String: Any])?["unsafeFlags"] != nil })
    }
}
