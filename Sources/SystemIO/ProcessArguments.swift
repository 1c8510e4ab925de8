#if canImport(Glibc)
import Glibc
#endif

/// The words this process was started with, the program's name first: `CommandLine.arguments`,
/// or /proc/self/cmdline when that is empty.
///
/// On Linux the Swift runtime finds argv by walking back from the environment block on the
/// initial stack. A preloaded library that changes the environment in its constructor moves that
/// block to the heap, and the runtime then finds no arguments at all: libfaketime does (the tests
/// run both programs under it), and livelocd would otherwise run with the defaults on the system's
/// paths. The kernel's copy of the command line is the same words, NUL-separated.
package func processArguments() -> [String] {
    let arguments = CommandLine.arguments
    guard arguments.isEmpty else { return arguments }
    let fd = retryingOnInterrupt { open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { return [] }
    let descriptor = FileDescriptor(rawValue: fd)
    defer { descriptor.close() }
    guard let bytes = try? descriptor.readToEnd(limit: 4 << 20, path: "/proc/self/cmdline") else { return [] }
    return bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast(bytes.last == 0 ? 1 : 0)
        .map { String(decoding: $0, as: UTF8.self) }
}
