/// A request header that cannot go on the wire (no `Name:`, or a line break or NUL in it); only
/// the start of its name is kept, never the value (it may be a secret).
package struct HTTPRequestEncoderError: Error, CustomStringConvertible, Equatable, Sendable {
    package var header: String

    package init(header: String) { self.header = header }

    package var description: String { "invalid request header '\(header)…': not one 'Name: value' line" }
}
