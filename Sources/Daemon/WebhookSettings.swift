import Delivery
import SystemIO
import HTTP
import Webhook

/// The daemon's `webhook.*` keys: each value checked as it is set (so a bad one names its file and
/// line), and the whole turned into the webhook sink's configuration at validation.
enum WebhookSettings {
    /// Key, value form and meaning, for `livelocd --help` and the documentation.
    static let keys: [(key: String, value: String, meaning: String)] = [
        ("webhook.url", "URL", "POST every event here (http or https; default: no webhook)"),
        ("webhook.secret_file", "PATH", "the whsec_… signing secrets, one per line (default: the systemd credential 'webhook-secret')"),
        ("webhook.ca_file", "PATH", "trust this CA bundle instead of the system store (default: system store)"),
        ("webhook.backlog", "all|latest", "after an outage, deliver every event or skip stale positions (default all)"),
        ("webhook.max_events", "N", "outbox bound in events; over it the oldest non-final updates are dropped (default 100000)"),
        ("webhook.max_bytes", "N", "outbox bound in body bytes (default 67108864)"),
        ("webhook.timeout", "DURATION", "total time for one attempt, connect to response: 10s, 500ms (default 10s)"),
        ("webhook.outbox", "PATH", "the durable outbox (default STATE_DIRECTORY/webhook-outbox.sqlite)"),
    ]

    /// Checks one value. - Throws: `badValue` naming the key.
    static func check(_ key: String, _ value: String) throws(ConfigurationError) {
        func bad(_ expected: String) -> ConfigurationError { .badValue(key: key, value: value, expected: expected, at: nil) }
        switch key {
        case "webhook.url":
            do { _ = try HTTPURL(value) } catch {
                throw .badValue(key: key, value: error.url, expected: "an http:// or https:// URL with a host (\(error.reason))", at: nil)
            }
        case "webhook.secret_file", "webhook.ca_file", "webhook.outbox":
            guard value.hasPrefix("/") else { throw bad("an absolute path") }
        case "webhook.backlog":
            guard BacklogPolicy(rawValue: value) != nil else { throw bad("all or latest") }
        case "webhook.max_events", "webhook.max_bytes":
            guard let number = Int(value), number > 0 else { throw bad("a whole number > 0") }
        case "webhook.timeout":
            guard case .some(.some) = DaemonConfiguration.duration(value) else { throw bad("\(Duration.textSyntax), more than 0") }
        default:
            throw .unknownKey(key: key, at: nil)
        }
    }

    /// The sink's configuration, or nil when no `webhook.url` is set.
    /// - Throws: `missingKey` for webhook keys without a URL or a secret, `badValue` for an unreadable
    ///   or empty secret file.
    static func configuration(from values: [String: String], stateDirectory: String,
                              credentialsDirectory: String?) throws(ConfigurationError) -> WebhookConfiguration? {
        guard let url = values["webhook.url"] else {
            if let stray = values.keys.sorted().first { throw .missingKey(key: "webhook.url", because: stray) }
            return nil
        }
        let secretFile = values["webhook.secret_file"]
            ?? credentialsDirectory.map { $0 + "/webhook-secret" }
        guard let secretFile else {
            throw .missingKey(key: "webhook.secret_file", because: "webhook.url (or a systemd credential 'webhook-secret')")
        }
        let secrets: [WebhookSecret]
        do { secrets = try WebhookSecret.load(fromFile: secretFile) } catch {
            throw .badValue(key: "webhook.secret_file", value: secretFile, expected: "a readable file of whsec_… secrets (\(error))", at: nil)
        }
        var configuration = WebhookConfiguration(
            url: url, secrets: secrets,
            caFile: values["webhook.ca_file"],
            backlog: values["webhook.backlog"].flatMap(BacklogPolicy.init(rawValue:)) ?? .all)
        if let events = values["webhook.max_events"].flatMap(Int.init) { configuration.maxEvents = events }
        if let bytes = values["webhook.max_bytes"].flatMap(Int.init) { configuration.maxBytes = bytes }
        if let text = values["webhook.timeout"], case .some(.some(let timeout)) = DaemonConfiguration.duration(text) {
            configuration.timeout = timeout
        }
        return configuration
    }
}
