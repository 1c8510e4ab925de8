/// A URL that `HTTPURL` refuses, as one line: `'http://': no host`.
package struct HTTPURLError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The URL without credentials.
    package var url: String
    package var reason: String

    package init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    package var description: String { "'\(url)': \(reason)" }
}
