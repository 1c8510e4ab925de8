/// A host name that `SocketAddress.resolve` could not turn into an address, as one line:
/// `could not resolve host 'example.invalid': Name or service not known`.
package struct AddressLookupError: Error, CustomStringConvertible, Equatable, Sendable {
    package var host: String
    /// The resolver's text (`gai_strerror`).
    package var reason: String

    package init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    package var description: String { "could not resolve host '\(host)': \(reason)" }
}
