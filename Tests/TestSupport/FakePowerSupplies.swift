import Foundation

/// Linux's power supply class as files (Documentation/ABI/testing/sysfs-class-power), in a
/// directory of the test's own.
public struct FakePowerSupplies: Sendable {
    public let root: URL

    public init() throws {
        root = try Paths.temporaryDirectory("power_supply")
    }

    /// Makes `name` with these attribute files; returns its directory.
    @discardableResult
    public func add(_ name: String, _ attributes: [String: String]) throws -> String {
        let directory = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (file, text) in attributes {
            try Data((text + "\n").utf8).write(to: directory.appendingPathComponent(file))
        }
        return directory.path
    }
}
