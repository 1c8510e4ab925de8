import JSONCoding

/// One reply line: `{"v":1,"ok":true,…}` or `{"v":1,"ok":false,"error":{…}}`.
package struct ControlResponse: Codable, Sendable, Equatable {
    package var v: Int
    package var ok: Bool
    /// `start`: the new share. `stop`: the share stopped, absent when none was active.
    package var share: ShareSummary?
    /// `status`: everything `liveloc status` shows.
    package var status: StatusReport?
    package var error: ControlFailure?
    /// `track`: one page of a share's track.
    package var track: TrackReply?
    /// `extend`: how the share's end moved (`share` is the share with its new end).
    package var extended: ExtensionSummary?

    package static func success(share: ShareSummary? = nil, status: StatusReport? = nil,
                                track: TrackReply? = nil, extended: ExtensionSummary? = nil) -> ControlResponse {
        var response = ControlResponse(v: ControlProtocol.version, ok: true, share: share, status: status, error: nil, track: track)
        response.extended = extended
        return response
    }

    package static func failure(_ code: ControlErrorCode, _ message: String) -> ControlResponse {
        failure(ControlFailure(code, message))
    }

    package static func failure(_ failure: ControlFailure) -> ControlResponse {
        ControlResponse(v: ControlProtocol.version, ok: false, share: nil, status: nil, error: failure)
    }

    /// The reply as one JSON line, newline included.
    package var line: [UInt8] {
        var bytes = (try? JSON.encode(self))
            ?? Array(#"{"error":{"code":"internal","message":"unencodable reply"},"ok":false,"v":1}"#.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Parses a reply line (without its newline). Nil when it is not a reply of this protocol.
    package init?(line: [UInt8]) {
        guard let response = try? JSON.decode(ControlResponse.self, from: line) else { return nil }
        self = response
    }

    private init(v: Int, ok: Bool, share: ShareSummary?, status: StatusReport?, error: ControlFailure?,
                 track: TrackReply? = nil) {
        self.v = v
        self.ok = ok
        self.share = share
        self.status = status
        self.error = error
        self.track = track
    }
}
