import Foundation
import TestSupport

/// The inputs the fuzz regression tests replay: crash files kept in Fuzz/regressions/HARNESS/ and
/// the committed seeds in Fuzz/corpus/HARNESS/.
enum FuzzInputs {
    static func regressions(_ harness: String) -> [String] { files(in: "Fuzz/regressions/\(harness)") }

    static func seeds(_ harness: String) -> [String] { files(in: "Fuzz/corpus/\(harness)") }

    /// Names (relative to the package root) of the files in `directory`, sorted; hidden files left out.
    static func files(in directory: String) -> [String] {
        let url = Paths.packageRoot.appendingPathComponent(directory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(directory)/\($0)" }
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Paths.packageRoot.appendingPathComponent(relativePath)))
    }
}
