import Logging
import Synchronization

#if canImport(CMosquitto)
    import CMosquitto
#endif

/// The terminal's connection to its broker, kept up for as long as ``run()`` runs: one
/// libmosquitto client at a time, whose loop reconnects by itself with back-off; when that
/// loop ends for good (see ``MosquittoSession``) a new client is built, with back-off
/// (1 s doubling to 60 s). Every change of ``state`` is logged once and reported to
/// `changed`; nothing here waits on the network for a caller: ``publish(topic:payload:retain:)``
/// only queues.
public final class MQTTLink: MQTTTransport {
    /// Why this process cannot use MQTT, or nil when it can: the build lacks the MQTT trait,
    /// or libmosquitto.so.1 (loaded here, on first use, never by a door without `mqtt:`)
    /// is missing. The text says what to install.
    public static func unavailableReason() -> String? {
        #if canImport(CMosquitto)
            return MosquittoSession.loadLibrary()
        #else
            return "this kioskpad was built without MQTT; install libmosquitto-dev and build with the default traits (the MQTT trait)"
        #endif
    }

    /// How long a first connection may take before the broker counts as unavailable.
    public static let answerLimit: Duration = .seconds(5)

    /// What the link tells its owner, in order, from libmosquitto's thread or the run task.
    public enum Report: Sendable {
        case state(MQTTConnectionState)
        /// A connection was accepted: subscribe and publish the current states now.
        case connected
        case message(MQTTInbound)
    }

    private struct State {
        #if canImport(CMosquitto)
            var session: MosquittoSession?
        #endif
        var connection: MQTTConnectionState = .connecting
        var since: ContinuousClock.Instant = .now
    }

    public let settings: MQTTLinkSettings
    private let state = Mutex(State())
    private let logger: Logger
    private let report: @Sendable (Report) -> Void

    public init(settings: MQTTLinkSettings, logger: Logger, report: @escaping @Sendable (Report) -> Void) {
        self.settings = settings
        self.logger = logger
        self.report = report
    }

    /// How the link stands now.
    public var connection: MQTTConnectionState { state.withLock { $0.connection } }

    /// Keeps a client connected until the task is cancelled; then publishes `offline` on the
    /// last will's topic (so a clean stop says what a crash would) and disconnects.
    public func run() async {
        #if canImport(CMosquitto)
            if let reason = MQTTLink.unavailableReason() {
                change(to: .unavailable(reason: reason))
                return
            }
            var backoff: Duration = .seconds(1)
            while !Task.isCancelled {
                let (ends, ended) = AsyncStream.makeStream(of: Int32.self)
                let session: MosquittoSession
                do {
                    session = try MosquittoSession(settings: settings, callbacks: callbacks(ended: ended))
                } catch {
                    change(to: .unavailable(reason: "\(error)"))
                    try? await Task.sleep(for: backoff)
                    backoff = min(backoff * 2, .seconds(60))
                    continue
                }
                state.withLock { $0.session = session }
                session.start()
                let code = await waitForEnd(ends)
                state.withLock { $0.session = nil }
                guard let code else {
                    if let will = settings.will { session.publish(topic: will.topic, payload: Array("offline".utf8), retain: true) }
                    if await session.close() { session.destroy() }
                    return
                }
                session.destroy()
                if case .connected = connection { backoff = .seconds(1) }
                let reason = MosquittoSession.describe(code)
                if case .refused = connection {} else { change(to: .unavailable(reason: reason)) }
                logger.warning("mqtt client stopped; building a new one", metadata: ["reason": "\(reason)", "retry_s": "\(backoff.components.seconds)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(60))
            }
        #else
            change(to: .unavailable(reason: "this kioskpad was built without MQTT (the MQTT trait, libmosquitto-dev)"))
        #endif
    }

    #if canImport(CMosquitto)
        /// The loop's end code, or nil when the task was cancelled first. While it waits, a
        /// connection that does not come within ``answerLimit`` is reported unavailable.
        private func waitForEnd(_ ends: AsyncStream<Int32>) async -> Int32? {
            await withTaskGroup(of: Int32?.self) { group in
                group.addTask {
                    for await code in ends { return code }
                    return nil
                }
                group.addTask { [self] in
                    // One check, when the first answer is due; then nothing until cancelled (no
                    // timer while the link is idle).
                    let due = state.withLock { $0.since } + MQTTLink.answerLimit
                    try? await Task.sleep(until: due, clock: .continuous)
                    let stalled =
                        !Task.isCancelled
                        && state.withLock { state -> Bool in
                            if case .connecting = state.connection { return true }
                            return false
                        }
                    if stalled { change(to: .unavailable(reason: "no answer from \(settings.endpoint)")) }
                    let (cancelled, open) = AsyncStream.makeStream(of: Never.self)
                    for await _ in cancelled {}
                    open.finish()
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }

        private func callbacks(ended: AsyncStream<Int32>.Continuation) -> MosquittoSession.Callbacks {
            MosquittoSession.Callbacks(
                connected: { [self] code in
                    if code == 0 {
                        change(to: .connected)
                        report(.connected)
                    } else {
                        change(to: .refused(reason: MosquittoSession.describeRefusal(code)))
                    }
                },
                disconnected: { [self] code in
                    // A refusal also closes the connection: the refusal is the news.
                    if code == 0 || code == MOSQ_ERR_CONN_REFUSED.rawValue { return }
                    change(to: .unavailable(reason: "connection lost: \(MosquittoSession.describe(code))"))
                },
                message: { [self] message in report(.message(message)) },
                ended: { code in
                    ended.yield(code)
                    ended.finish()
                })
        }
    #endif

    public func publish(topic: String, payload: [UInt8], retain: Bool) -> Bool {
        #if canImport(CMosquitto)
            let session = state.withLock { state -> MosquittoSession? in
                guard case .connected = state.connection else { return nil }
                return state.session
            }
            return session?.publish(topic: topic, payload: payload, retain: retain) ?? false
        #else
            return false
        #endif
    }

    public func subscribe(_ topic: String) {
        #if canImport(CMosquitto)
            state.withLock { $0.session }?.subscribe(topic)
        #endif
    }

    /// Records a new state; logs and reports it only when it differs from the last one.
    private func change(to new: MQTTConnectionState) {
        let changed = state.withLock { state -> Bool in
            guard state.connection != new else { return false }
            state.connection = new
            state.since = .now
            return true
        }
        guard changed else { return }
        let metadata: Logger.Metadata = ["broker": "\(settings.endpoint)"]
        switch new {
        case .connecting: break
        case .connected: logger.notice("mqtt connected", metadata: metadata)
        case .refused(let reason): logger.error("mqtt broker refused the connection: \(reason)", metadata: metadata)
        case .unavailable(let reason): logger.warning("mqtt broker unavailable: \(reason); the terminal works on without it", metadata: metadata)
        }
        report(.state(new))
    }
}
