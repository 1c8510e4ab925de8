/// Where the Traccar destination sends: the server's OsmAnd port and the device id it knows.
package struct TraccarConfiguration: Sendable, Equatable {
    /// The OsmAnd protocol's endpoint, e.g. `http://traccar.example:5055` (Traccar's default port).
    package var url: String
    /// The device's identifier as registered in Traccar (its "Identifier" field).
    package var deviceID: String
    /// PEM file of CA certificates to trust instead of the system store, for an https:// `url`
    /// (a self-hosted Traccar behind a private CA).
    package var caFile: String?
    /// The longest one request may take, connecting included.
    package var timeout: Duration

    /// - Throws: `TraccarConfigurationError` for a URL that is not http(s) or an empty or
    ///   unprintable device id.
    package init(url: String, deviceID: String, caFile: String? = nil, timeout: Duration = .seconds(10)) throws(TraccarConfigurationError) {
        let lowered = url.lowercased()
        guard (lowered.hasPrefix("http://") || lowered.hasPrefix("https://")), url.count > 8,
              !url.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "#" })
        else { throw .invalidURL(url) }
        guard !deviceID.isEmpty, deviceID.utf8.count <= 128,
              deviceID.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { throw .invalidDeviceID(deviceID) }
        self.url = url
        self.deviceID = deviceID
        self.caFile = caFile
        self.timeout = timeout
    }
}

/// A Traccar setting that cannot be used.
package enum TraccarConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidURL(String)
    case invalidDeviceID(String)

    package var description: String {
        switch self {
        case .invalidURL(let url): "invalid Traccar URL '\(url)': expected http://HOST:5055 or https://…"
        case .invalidDeviceID(let id): "invalid Traccar device id '\(id)': expected 1-128 printable characters without spaces"
        }
    }
}
