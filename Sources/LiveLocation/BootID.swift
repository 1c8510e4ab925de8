/// One boot of the system (Linux's /proc/sys/kernel/random/boot_id, a UUID): CLOCK_BOOTTIME counts
/// from the start of one boot, so a time on it means something only with the boot it was read in.
/// Two words, so that carrying it with every clock reading costs no allocation.
public struct BootID: Sendable, Hashable, Codable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The boot id's text (`8-4-4-4-12` hexadecimal digits; surrounding white space ignored); nil
    /// when it is not a UUID.
    public init?(_ text: some StringProtocol) {
        var value: (high: UInt64, low: UInt64) = (0, 0)
        var digits = 0
        for character in text.utf8 {
            let digit: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = character - UInt8(ascii: "A") + 10
            case UInt8(ascii: "-"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"): continue
            default: return nil
            }
            guard digits < 32 else { return nil }
            if digits < 16 { value.high = value.high << 4 | UInt64(digit) } else { value.low = value.low << 4 | UInt64(digit) }
            digits += 1
        }
        guard digits == 32 else { return nil }
        (high, low) = value
    }

    public var description: String {
        let hex = String(high, radix: 16).leftPadded(to: 16) + String(low, radix: 16).leftPadded(to: 16)
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
