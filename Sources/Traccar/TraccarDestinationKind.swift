import Delivery
import Settings

extension TraccarDestination {
    /// Traccar's settings (`traccar.*`; `liveloc share --traccar…`) and how it is built.
    package static let kind = DestinationKind(
        name: "traccar", title: "Traccar",
        about: "Every position sent to a Traccar server's OsmAnd port (usually 5055) as the device of the given identifier.",
        settings: [
            DestinationSetting(SettingDescription("traccar.url", "URL", example: "http://traccar.example.org:5055",
                                                  "send every position to this Traccar server's OsmAnd port (default: no Traccar)",
                                                  shareOption: "--traccar")) { value throws(SettingError) in
                guard (try? TraccarConfiguration(url: value, deviceID: "x")) != nil else {
                    throw .badValue(key: "traccar.url", value: value, expected: "an http:// or https:// URL such as http://HOST:5055 (an invalid Traccar URL)")
                }
            },
            DestinationSetting(SettingDescription("traccar.device_id", "ID", example: "van",
                                                  "the device's identifier in Traccar (required with the URL)",
                                                  shareOption: "--traccar-id")) { value throws(SettingError) in
                guard (try? TraccarConfiguration(url: "http://localhost", deviceID: value)) != nil else {
                    throw .badValue(key: "traccar.device_id", value: value, expected: "1-128 printable characters without spaces")
                }
            },
            .readableFile(SettingDescription("traccar.ca_file", "PATH", example: "/etc/livelocd/traccar-ca.pem",
                                             "PEM file of CA certificates to trust instead of the system store, for an https:// URL "
                                                 + "(a self-hosted Traccar behind a private CA; default: the system store)",
                                             shareOption: "--traccar-ca-file")),
        ],
        configure: { values, _ throws(SettingError) in
            let configuration: TraccarConfiguration
            switch (values["traccar.url"], values["traccar.device_id"]) {
            case (nil, _): return nil  // DestinationKind.configure: no traccar.url, no destination
            case (_, nil): throw .missingKey("traccar.device_id", because: "traccar.url", hint: "(the device's identifier in Traccar)")
            case (let url?, let device?):
                do { configuration = try TraccarConfiguration(url: url, deviceID: device, caFile: values["traccar.ca_file"]) } catch {
                    throw .badValue(key: "traccar.url", value: url, expected: "\(error)")
                }
            }
            return ConfiguredDestination(kind: "traccar") { context in try TraccarDestination(configuration: configuration, log: context.log) }
        })
}
