import Delivery
import HTTP
import Settings
import ShareLink
import SystemIO

extension LinkDestination {
    /// The link's settings (`link.*`; `liveloc share --link-…`) and how it is built.
    package static let kind = DestinationKind(
        name: "link", title: "Share link",
        about: "Every event sealed end-to-end (AES-256-GCM, a key per share made on this device) and posted to a livelocd-relay, for a link RELAY/s/ID#KEY anyone can open in a browser; the key is in the link's fragment, which browsers never send: the relay holds only ciphertext. The link is printed by liveloc share (a line 'link: URL' on stderr) and, for livelocd, kept in link.key_directory (mode 0600; never in a log line).",
        settings: [
            DestinationSetting(SettingDescription("link.relay_url", "URL", example: "https://relay.example.net",
                                                  "the livelocd-relay to post to; links are URL/s/ID#KEY (default: no link)", shareOption: "--link-relay")) { value throws(SettingError) in
                do throws(HTTPURLError) { _ = try HTTPURL(value) } catch {
                    throw .badValue(key: "link.relay_url", value: error.url, expected: "an http:// or https:// URL with a host (\(error.reason))")
                }
            },
            .absolutePath(SettingDescription("link.secret_file", "PATH", example: "/etc/livelocd/link-secret",
                                             "the secret posts are signed with, one line also in the relay's --secret-file (default: the systemd credential 'link-secret')",
                                             shareOption: "--link-secret-file", namesSecretFile: true)),
            .absolutePath(SettingDescription("link.key_directory", "PATH", example: "/var/lib/livelocd/links",
                                             "where each share's link is kept (mode 0600) until its end is delivered, so that a restart keeps it (default: memory only)",
                                             shareOption: "--link-key-directory")),
            .readableFile(SettingDescription("link.ca_file", "PATH", example: "/etc/livelocd/relay-ca.pem",
                                             "trust this CA bundle instead of the system store (default: system store)")),
            DestinationSetting(SettingDescription("link.timeout", "DURATION", default: "10s",
                                                  "total time for one post, connect to response: 10s, 500ms")) { value throws(SettingError) in
                guard let timeout = Duration(durationText: value), timeout > .zero else {
                    throw .badValue(key: "link.timeout", value: value, expected: "\(Duration.textSyntax), more than 0")
                }
            },
        ],
        configure: { values, environment throws(SettingError) in
            // Called only with link.relay_url set: the kind's configure(_:_:) refuses a stray key without it.
            guard let url = values["link.relay_url"] else { return nil }
            guard let secretFile = values["link.secret_file"] ?? Credentials.path("link-secret", in: environment.credentialsDirectory) else {
                throw .missingKey("link.secret_file", because: "link.relay_url", hint: "(or a systemd credential 'link-secret'; secrets never go on the command line)")
            }
            let secret: [UInt8]
            do {
                switch RelaySecrets.parse(try readSecretFile(secretFile)) {
                case .success(let secrets) where secrets.count == 1: secret = secrets[0]
                case .success: throw SettingError.badValue(key: "link.secret_file", value: secretFile, expected: "a file of one secret")
                case .failure(let error): throw SettingError.badValue(key: "link.secret_file", value: secretFile, expected: "a file of one secret (\(error))")
                }
            } catch let error as SettingError {
                throw error
            } catch {
                throw .badValue(key: "link.secret_file", value: secretFile, expected: "a readable file of one secret (\(error))")
            }
            var configuration = LinkConfiguration(relayURL: url, secret: secret, keyDirectory: values["link.key_directory"],
                                                  caFile: values["link.ca_file"])
            if let timeout = values["link.timeout"].flatMap(Duration.init(durationText:)) { configuration.timeout = timeout }
            let configured = configuration
            return ConfiguredDestination(kind: "link") { context in
                let log = context.log
                let inDaemon = context.inDaemon
                return try LinkDestination(configuration: configured, lastFixAge: context.lastFixAge) { share, link, pageURL in
                    if inDaemon {
                        // The key is a secret: the log names the page only; the link is in link.key_directory.
                        log.notice("share \(share.rawValue): link page \(pageURL) (the full link, with its key, is in link.key_directory)")
                    } else {
                        writeStandardError("link: \(link)")
                    }
                }
            }
        })
}

private func writeStandardError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    try? FileDescriptor(rawValue: 2).writeAll(bytes)
}
