import CMosquitto
import LiveLocation

/// A new libmosquitto client for one attempt: options, credentials, the will, TLS and the callbacks.
extension MQTTConnection {
    /// A new libmosquitto client with every option, the will and the callbacks set.
    func makeClient(firstAttemptAt: Timestamp) throws(MQTTConnectionError) -> Handle {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let raw = cmosquitto_new(configuration.clientID, false, context) else {
            throw .library("mosquitto_new failed (out of memory, or an invalid client id)")
        }
        let handle = Handle(raw: raw)
        do {
            try configure(handle, firstAttemptAt: firstAttemptAt)
        } catch {
            cmosquitto_destroy(raw)
            throw error
        }
        return handle
    }

    private func configure(_ handle: Handle, firstAttemptAt: Timestamp) throws(MQTTConnectionError) {
        let raw = handle.raw
        func check(_ code: Int32, _ what: String) throws(MQTTConnectionError) {
            guard code == MOSQ_ERR_SUCCESS.rawValue else { throw .library("\(what): \(Self.libraryMessage(code))") }
        }
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(cmosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, version), "MQTT protocol version")
        try check(cmosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        try check(cmosquitto_threaded_set(raw, true), "threaded mode")
        if let user = configuration.user {
            try check(cmosquitto_username_pw_set(raw, user, configuration.password), "user name and password")
        }
        if let will = formatter.will(firstConnectedAt: firstAttemptAt) {
            let code = will.payload.withUnsafeBytes { payload in
                cmosquitto_will_set_v5(raw, will.topic, Int32(payload.count), payload.baseAddress,
                                      Int32(will.qos.rawValue), will.retain, nil)
            }
            try check(code, "last will")
        }
        if configuration.broker.usesTLS {
            // The CA file, or the system store; a client certificate when given. A key protected by a
            // passphrase is refused rather than asked for on a terminal.
            let code = cmosquitto_tls_set(raw, configuration.caFile, configuration.caFile == nil ? "/etc/ssl/certs" : nil,
                                         configuration.clientCertificate, configuration.clientKey) { _, _, _, _ in 0 }
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                throw .library("bad certificate: cannot use the CA file or client certificate/key "
                    + "(\([configuration.caFile, configuration.clientCertificate, configuration.clientKey].compactMap { $0 }.joined(separator: ", "))): "
                    + Self.libraryMessage(code))
            }
            // SSL_VERIFY_PEER; host name checks stay on (tls_insecure false).
            try check(cmosquitto_tls_opts_set(raw, 1, nil, nil), "TLS options")
            try check(cmosquitto_tls_insecure_set(raw, false), "TLS host name checks")
        }
        cmosquitto_connect_v5_callback_set(raw) { _, context, code, flags, _ in
            MQTTConnection.from(context)?.connected(code: code, flags: flags)
        }
        cmosquitto_publish_v5_callback_set(raw) { _, context, mid, code, _ in
            MQTTConnection.from(context)?.published(mid: mid, code: code)
        }
        cmosquitto_message_v5_callback_set(raw) { _, context, message, properties in
            guard let message else { return }
            MQTTConnection.from(context)?.received(message, properties: properties)
        }
        cmosquitto_disconnect_v5_callback_set(raw) { _, context, code, _ in
            MQTTConnection.from(context)?.disconnected(code: code)
        }
        cmosquitto_log_callback_set(raw) { _, context, level, text in
            guard let text else { return }
            MQTTConnection.from(context)?.libraryLog(level: level, message: String(cString: text))
        }
    }

    static func libraryMessage(_ code: Int32) -> String {
        String(cString: cmosquitto_strerror(code))
    }
}
