import Foundation

/// The whole text of a /proc file (`/proc/net/tcp`, `/proc/PID/maps`), or nil when it cannot be
/// opened. Read to the end: /proc files report size 0, and `String(contentsOfFile:)` then returns
/// the first page only (4 KiB: the first 27 sockets of /proc/net/tcp on a busy machine).
public func procFileText(_ path: String) -> String? {
    guard let file = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? file.close() }
    guard let data = try? file.readToEnd() else { return nil }
    return String(decoding: data, as: UTF8.self)
}

/// The file names of the libraries (and other files) process `pid` has mapped, from its
/// /proc/PID/maps (`libcurl.so.4`, `libmosquitto.so.1`, …); nil when the file cannot be read.
public func mappedFileNames(ofProcess pid: Int32) -> Set<String>? {
    guard let maps = procFileText("/proc/\(pid)/maps") else { return nil }
    return Set(maps.split(separator: "\n").compactMap { line in
        line.split(separator: " ", omittingEmptySubsequences: true).last.flatMap { path in
            path.hasPrefix("/") ? String(path.split(separator: "/").last!) : nil
        }
    })
}
