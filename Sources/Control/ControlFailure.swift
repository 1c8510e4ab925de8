/// An error reply's content: its code and a sentence for a person.
package struct ControlFailure: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    package var code: ControlErrorCode
    package var message: String

    package init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `message (code)`, as `liveloc` prints it.
    package var description: String { "\(message) (\(code.rawValue))" }
}
