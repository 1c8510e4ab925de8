/// A destination that also takes commands for the daemon (MQTT's `<prefix>/<device>/command` with
/// `mqtt.commands`): the daemon reads each as a request of the control protocol and answers it here,
/// without knowing which kind of destination it came from (`Destination.commandChannel`).
package protocol CommandChannel: AnyObject, Sendable {
    /// The commands received, in order, for one consumer, which calls `commandDone` when it is done
    /// with each (done, repeated or ignored). At most the backlog's capacity wait; a command that
    /// finds them all waiting (or comes once the consumer is gone) is not queued but given to
    /// `refuse`, at once, on the channel's own thread (it must not block: it answers `busy` through
    /// `reply` and logs). Call it once, before the destination runs.
    func takeCommands(refusing refuse: @escaping @Sendable (RemoteCommand, CommandBacklog.Refusal) -> Void)
        -> AsyncStream<RemoteCommand>
    /// The consumer is done with one command. Returns the burst of commands that overflowed the
    /// backlog when this emptied it, for the log.
    func commandDone() -> CommandBacklog.Burst?
    /// Sends the reply to `command`. Returns why it could not (no connection), or nil.
    @discardableResult
    func reply(_ payload: [UInt8], to command: RemoteCommand) -> String?
}
