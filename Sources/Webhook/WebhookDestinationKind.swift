import Delivery
import SystemIO
import HTTP
import Settings

extension WebhookDestination {
    /// The webhook's settings (`webhook.*`; `liveloc share --webhook…`) and how it is built.
    package static let kind = DestinationKind(
        name: "webhook", title: "Webhook",
        about: "Every event POSTed to one URL as a Standard Webhooks request, signed with each whsec_… secret of the secret file (one per line: rotation). Without webhook.secret_file the systemd credential 'webhook-secret' is read.",
        settings: [
            DestinationSetting(SettingDescription("webhook.url", "URL", example: "https://example.org/livelocd",
                                                  "POST every event here (http or https; default: no webhook)", shareOption: "--webhook")) { value throws(SettingError) in
                do throws(HTTPURLError) { _ = try HTTPURL(value) } catch {
                    throw .badValue(key: "webhook.url", value: error.url, expected: "an http:// or https:// URL with a host (\(error.reason))")
                }
            },
            .absolutePath(SettingDescription("webhook.secret_file", "PATH", example: "/etc/livelocd/webhook-secret",
                                             "the whsec_… signing secrets, one per line (default: the systemd credential 'webhook-secret')",
                                             shareOption: "--webhook-secret-file", namesSecretFile: true)),
            .readableFile(SettingDescription("webhook.ca_file", "PATH", example: "/etc/livelocd/webhook-ca.pem",
                                             "trust this CA bundle instead of the system store (default: system store)",
                                             shareOption: "--webhook-ca-file")),
            DestinationSetting(SettingDescription("webhook.backlog", "all|latest", default: "all",
                                                  "after an outage, deliver every event or skip stale positions (the final update and ended always go)",
                                                  shareOption: "--webhook-backlog")) { value throws(SettingError) in
                guard BacklogPolicy(rawValue: value) != nil else { throw .badValue(key: "webhook.backlog", value: value, expected: "all or latest") }
            },
            DestinationSetting(SettingDescription("webhook.max_events", "N", default: "100000",
                                                  "the queue's bound in events; over it the oldest non-final updates are dropped")) { value throws(SettingError) in
                try positiveWholeNumber("webhook.max_events", value)
            },
            DestinationSetting(SettingDescription("webhook.max_bytes", "N", default: "67108864", "the queue's bound in body bytes")) { value throws(SettingError) in
                try positiveWholeNumber("webhook.max_bytes", value)
            },
            DestinationSetting(SettingDescription("webhook.timeout", "DURATION", default: "10s",
                                                  "total time for one attempt, connect to response: 10s, 500ms")) { value throws(SettingError) in
                guard let timeout = Duration(durationText: value), timeout > .zero else {
                    throw .badValue(key: "webhook.timeout", value: value, expected: "\(Duration.textSyntax), more than 0")
                }
            },
            .absolutePath(SettingDescription("webhook.outbox", "PATH", example: "/var/lib/livelocd/webhook-outbox.sqlite",
                                             "an outbox of an earlier version (before the journal), taken over at start (default: none)")),
        ],
        configure: { values, environment throws(SettingError) in
            guard let configuration = try configuration(from: values, credentialsDirectory: environment.credentialsDirectory) else { return nil }
            return ConfiguredDestination(kind: "webhook") { _ in try WebhookDestination(configuration: configuration) }
        })

    private static func positiveWholeNumber(_ key: String, _ value: String) throws(SettingError) {
        guard let number = Int(value), number > 0 else { throw .badValue(key: key, value: value, expected: "a whole number > 0") }
    }

    /// The webhook's configuration, or nil when no `webhook.url` is set. Reads the secret file (or
    /// `$CREDENTIALS_DIRECTORY/webhook-secret`).
    /// - Throws: `missingKey` for a URL without a secret, `badValue` for an unreadable
    ///   or empty secret file.
    private static func configuration(from values: [String: String], credentialsDirectory: String?) throws(SettingError)
        -> WebhookConfiguration? {
        guard let url = values["webhook.url"] else { return nil }
        guard let secretFile = values["webhook.secret_file"] ?? Credentials.path("webhook-secret", in: credentialsDirectory) else {
            throw .missingKey("webhook.secret_file", because: "webhook.url", hint: "(or a systemd credential 'webhook-secret'; secrets never go on the command line)")
        }
        let secrets: [WebhookSecret]
        do { secrets = try WebhookSecret.load(fromFile: secretFile) } catch {
            throw .badValue(key: "webhook.secret_file", value: secretFile, expected: "a readable file of whsec_… secrets (\(error))")
        }
        var configuration = WebhookConfiguration(
            url: url, secrets: secrets, caFile: values["webhook.ca_file"],
            backlog: values["webhook.backlog"].flatMap(BacklogPolicy.init(rawValue:)) ?? .all)
        if let events = values["webhook.max_events"].flatMap(Int.init) { configuration.maxEvents = events }
        if let bytes = values["webhook.max_bytes"].flatMap(Int.init) { configuration.maxBytes = bytes }
        if let timeout = values["webhook.timeout"].flatMap(Duration.init(durationText:)) { configuration.timeout = timeout }
        return configuration
    }
}
