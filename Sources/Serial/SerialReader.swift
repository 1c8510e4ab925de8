import SystemIO

/// The device and the wake-up pipe, polled together, and a read buffer.
struct SerialReader: ~Copyable {
    enum Result {
        case bytes(UnsafeRawBufferPointer)
        case idle
        case ended(SerialSession.End)
    }

    let device: FileDescriptor
    let wakeup: FileDescriptor
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)

    init(device: FileDescriptor, wakeup: FileDescriptor) {
        self.device = device
        self.wakeup = wakeup
    }

    deinit { buffer.deallocate() }

    /// Waits up to `timeout` (nil: no limit) for bytes. The bytes are valid until the next read.
    mutating func read(timeout: Duration?) -> Result {
        let events: [PollEvents]
        do { events = try pollReadable([device, wakeup], timeout: timeout) } catch {
            return .ended(.unplugged(error.description))
        }
        if !events[1].isEmpty { return .ended(.cancelled) }
        let deviceEvents = events[0]
        if deviceEvents.isEmpty { return .idle }
        if deviceEvents.contains(.invalid) { return .ended(.unplugged("the descriptor was closed")) }
        do {
            guard let count = try device.readAvailable(into: buffer) else {
                // Nothing to read: a hang-up or an error without data is the end of the device.
                if deviceEvents.contains(.hangUp) || deviceEvents.contains(.error) {
                    return .ended(.unplugged("hang-up"))
                }
                return .idle
            }
            if count == 0 { return .ended(.unplugged("hang-up (end of file)")) }
            return .bytes(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        } catch {
            return .ended(.unplugged(error.description))
        }
    }
}
