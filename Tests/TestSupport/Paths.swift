import Foundation

/// Where the package and its built products are, for tests that run the real executables.
public enum Paths {
    /// The package's root directory.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// `Fixtures/NAME` in the package.
    public static func fixture(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// `../shared/gpsd-corpus`, when present (tests that need it skip otherwise).
    public static var gpsdCorpus: URL? {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/gpsd-corpus")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// A built executable of the package: the test bundle's own build directory first (the products
    /// `swift build` made beside it), then `.build/debug`.
    public static func executable(_ name: String) -> URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [beside, beside.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")] {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug").appendingPathComponent(name)
    }

    /// A new empty directory under the system's temporary directory.
    public static func temporaryDirectory(_ label: String = "livelocd-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
