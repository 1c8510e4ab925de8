extension Duration {
    /// A short reading for messages and logs: `60 s`, `1.5 s`, `500 ms`, `1250 ms`.
    package var shortText: String {
        let milliseconds = wholeMicroseconds / 1000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        if milliseconds > 1000 && milliseconds % 100 == 0 { return "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s" }
        return "\(milliseconds) ms"
    }
}
