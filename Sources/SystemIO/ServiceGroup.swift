import Synchronization

/// One long-running part of a program (a source pump, a dispatcher, a control server), in the
/// manner of swift-service-lifecycle's `Service`.
package struct Service: Sendable {
    /// What the group does when `run` returns without an error (an error always fails the group).
    package enum Ending: Sendable {
        /// Shut the whole group down gracefully (e.g. `liveloc share`'s share ended).
        case shutsDownGroup
        /// Nothing: the others go on (a replayed log that ran out in the daemon).
        case isIgnored
    }

    package var name: String
    package var ending: Ending
    package var run: @Sendable () async throws -> Void
    /// How to stop it gracefully, called once, in reverse order of start; nil: cancel its task.
    package var shutdown: (@Sendable () async -> Void)?
    /// Whether its task is cancelled after `shutdown` returns (a hook that only drains the service
    /// first); false when `shutdown` itself makes `run` return.
    package var cancelsAfterShutdown: Bool

    package init(_ name: String, ending: Ending = .isIgnored, cancelsAfterShutdown: Bool = false,
                 shutdown: (@Sendable () async -> Void)? = nil, run: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.ending = ending
        self.run = run
        self.shutdown = shutdown
        self.cancelsAfterShutdown = cancelsAfterShutdown
    }
}

/// How a group of services ended.
package enum ServiceGroupOutcome: Sendable, Equatable {
    /// A signal asked for it, and every service stopped gracefully.
    case signalled(Int32)
    /// A service with `.shutsDownGroup` finished, and the others stopped gracefully.
    case finished(service: String)
    /// A service failed; the others stopped gracefully.
    case failed(service: String, error: String)
    /// A second signal arrived during the graceful shutdown, once the shutdown had had its
    /// moment (`forceGrace`): the group returned, leaving the services that had not stopped yet
    /// (the caller exits).
    case forced(Int32)
}

/// Runs `services` until a signal in `signals`, a service that ends the group, or a failure; then
/// stops them one at a time in reverse order of start (each's `shutdown`, or its task's
/// cancellation), waiting for each to return. A second signal returns with `.forced`: at once
/// when the shutdown began `forceGrace` ago or more, else when `forceGrace` has passed (if the
/// shutdown has not ended by then). Two signals a moment apart are one request to stop: GNU
/// `timeout` signals the program and then its process group, and a terminal's Ctrl-C reaches every
/// process of the group; taking the second for "exit at once" lost a share's final update and
/// `ended` (issue 23).
///
/// - Parameter log: one line when the shutdown starts and why.
/// - Parameter executor: where the services' tasks run (`liveloc share` keeps its pipeline on one
///   thread: a fix reaches stdout without a cross-CPU wake-up); nil: the global executor.
/// - Parameter caught: the signals already taken over with `signalStream` (a program that must
///   not die of a signal during its start-up makes it first); nil: `signals` are taken over here.
/// - Parameter forceGrace: how long the graceful shutdown has before a second signal ends it.
package func runServiceGroup(_ services: [Service], signals: [Int32], caught: AsyncStream<Int32>? = nil,
                             executor: (any TaskExecutor)? = nil, forceGrace: Duration = .seconds(2),
                             log: Logger) async -> ServiceGroupOutcome {
    enum Happening: Sendable {
        case returned(index: Int, error: String?)
        case signal(Int32)
        /// `forceGrace` has passed since the shutdown began.
        case graceOver
    }
    let (happenings, report) = AsyncStream.makeStream(of: Happening.self)
    // Taken over here, before any service starts: a signal from now on is seen, never fatal.
    let caught = caught ?? signalStream(signals)
    let signalTask = Task {
        for await number in caught { report.yield(.signal(number)) }
    }
    defer { signalTask.cancel() }
    let tasks = services.enumerated().map { index, service in
        Task(executorPreference: executor) {
            do {
                try await service.run()
                report.yield(.returned(index: index, error: nil))
            } catch is CancellationError {
                report.yield(.returned(index: index, error: nil))
            } catch {
                report.yield(.returned(index: index, error: "\(error)"))
            }
        }
    }
    var stopped = Set<Int>()
    var outcome: ServiceGroupOutcome?
    var iterator = happenings.makeAsyncIterator()
    while outcome == nil, let happening = await iterator.next() {
        switch happening {
        case .signal(let number):
            outcome = .signalled(number)
            log.notice("\(signalName(number)): shutting down (a second \(signalName(number)) stops at once, "
                + "from \(forceGrace.shortText) on)")
        case .returned(let index, let error):
            stopped.insert(index)
            if let error {
                outcome = .failed(service: services[index].name, error: error)
            } else if case .shutsDownGroup = services[index].ending {
                outcome = .finished(service: services[index].name)
            }
        case .graceOver:
            break
        }
    }
    guard let outcome else { return .finished(service: "") }
    let graceTimer = Task {
        try await Task.sleep(for: forceGrace)
        report.yield(.graceOver)
    }
    defer { graceTimer.cancel() }
    var graceOver = false
    var forcedBy: Int32?
    for index in services.indices.reversed() where !stopped.contains(index) {
        let shutdown = Task {
            if let stop = services[index].shutdown {
                await stop()
                if services[index].cancelsAfterShutdown { tasks[index].cancel() }
            } else {
                tasks[index].cancel()
            }
        }
        while !stopped.contains(index), let happening = await iterator.next() {
            switch happening {
            case .signal(let number):
                guard graceOver else {
                    forcedBy = forcedBy ?? number
                    continue
                }
                shutdown.cancel()
                return .forced(number)
            case .graceOver:
                graceOver = true
                if let number = forcedBy {
                    shutdown.cancel()
                    return .forced(number)
                }
            case .returned(let returned, let error):
                stopped.insert(returned)
                if let error { log.error("\(services[returned].name) failed while stopping: \(error)") }
            }
        }
    }
    return outcome
}

package func signalName(_ number: Int32) -> String {
    switch number {
    case 15: "SIGTERM"
    case 2: "SIGINT"
    case 1: "SIGHUP"
    default: "signal \(number)"
    }
}
