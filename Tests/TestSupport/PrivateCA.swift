import Foundation

/// A throwaway certificate authority and a server certificate it signed for 127.0.0.1, made with
/// the openssl command: what a self-hosted server behind a private CA presents. The CA is in no
/// system store, so a client trusts the server only when told to trust `certificateAuthority`.
public struct PrivateCA: Sendable {
    public static let opensslPath = "/usr/bin/openssl"
    /// Whether the openssl command is there (scripts/install-deps installs it).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: opensslPath) }

    /// The CA's certificate (PEM): what a `ca_file` names.
    public let certificateAuthority: URL
    /// The server's certificate (PEM, signed by the CA, for IP 127.0.0.1) and its key: what a
    /// loopback server's `--tls-cert` and `--tls-key` take.
    public let server: (certificate: URL, key: URL)

    /// Makes the CA and the server certificate in `directory` (P-256 keys, valid one day).
    public static func make(in directory: URL) async throws -> PrivateCA {
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let extensions = file("server.ext")
        try "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", file("ca.key"),
             "-out", file("ca.pem"), "-days", "1", "-subj", "/CN=livelocd test private CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", file("server.key"),
             "-out", file("server.csr"), "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial",
             "-days", "1", "-extfile", extensions, "-out", file("server.pem")],
        ]
        for arguments in steps {
            let result = try await runProcess(URL(fileURLWithPath: opensslPath), arguments, timeout: .seconds(30))
            guard result.status == 0 else {
                throw ReceiverError(message: "openssl \(arguments[0]) failed (\(result.status)): \(result.stderr)")
            }
        }
        return PrivateCA(certificateAuthority: URL(fileURLWithPath: file("ca.pem")),
                         server: (URL(fileURLWithPath: file("server.pem")), URL(fileURLWithPath: file("server.key"))))
    }

    private init(certificateAuthority: URL, server: (certificate: URL, key: URL)) {
        self.certificateAuthority = certificateAuthority
        self.server = server
    }
}
