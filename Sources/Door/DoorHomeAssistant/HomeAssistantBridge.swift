import DoorController
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import Logging

/// Reports a terminal to Home Assistant over MQTT: availability, discovery, the door,
/// tamper, keypad and lock states, access and door events, and (with `remote_unlock`) takes
/// the lock entity's commands with a code.
///
/// It is a sink of the ``TerminalEventBus`` (its own queue: the broker never delays a key,
/// the display or the door) and reads what the ``MQTTLink`` reports from ``run()``. While
/// the broker is away, states are kept as their latest value only and events wait in a
/// queue of ``eventQueueLimit`` (the oldest dropped and counted): the journal stays the
/// record. No message carries a PIN, a code or how many digits one had.
public actor HomeAssistantBridge: TerminalEventSink {
    /// Events kept while the broker is away.
    public static let eventQueueLimit = 100
    /// The largest command payload read; larger ones are ignored.
    public static let maxCommandBytes = 256

    /// What the bridge tells metrics and health.
    public enum Note: Sendable, Equatable {
        case connection(MQTTConnectionState)
        case eventsDropped(Int)
        /// An inbound message was ignored (`unknown_topic`, `oversized`, `malformed`, `bad_code`, `retained`).
        case inboundIgnored(reason: String)
    }

    /// The bridge's input from the link, in order; ``makeInbox()`` makes one.
    public typealias Inbox = AsyncStream<Input>

    /// What ``run()`` reads: the link's reports and the bridge's own timers.
    public enum Input: Sendable {
        case link(MQTTLink.Report)
        case reannounce
    }

    private let transport: any MQTTTransport
    private let inbox: Inbox
    private let inboxContinuation: Inbox.Continuation
    private let discovery: HomeAssistantDiscovery
    private var topics: HomeAssistantTopics { discovery.topics }
    private let logger: Logger
    private let note: @Sendable (Note) -> Void
    /// Puts a remote unlock refusal on the bus (the journal records it).
    private let publishEvent: @Sendable (TerminalEvent) -> Void
    private var remoteCode: (@Sendable (SecretDigits) async -> Void)?
    private let reannounceDelay: ClosedRange<Double>

    private var connected = false
    private var door: Bool?
    private var tamper: Bool?
    /// The door's mode (lockdown, release), as the last `doorMode` event said.
    private var mode = DoorMode.normal
    private var keypadOK = true
    /// Per OSDP reader address: offline or refused, tampered, power failed.
    private var readerProblems: [Int: (down: Bool, tamper: Bool, powerFailed: Bool)] = [:]
    private var locked = true
    private var lastUser: String?
    private var queue: [[UInt8]] = []
    private var droppedSinceConnect = 0

    /// A new inbox: give the continuation to the ``MQTTLink``'s report and the stream here.
    public static func makeInbox() -> (Inbox, Inbox.Continuation) {
        AsyncStream.makeStream(of: Input.self)
    }

    public init(
        transport: any MQTTTransport, inbox: (Inbox, Inbox.Continuation), discovery: HomeAssistantDiscovery, logger: Logger,
        reannounceDelay: ClosedRange<Double> = 0.5...3, note: @escaping @Sendable (Note) -> Void = { _ in },
        publishEvent: @escaping @Sendable (TerminalEvent) -> Void = { _ in }
    ) {
        self.transport = transport
        (self.inbox, inboxContinuation) = inbox
        self.discovery = discovery
        self.logger = logger
        self.reannounceDelay = reannounceDelay
        self.note = note
        self.publishEvent = publishEvent
    }

    /// Where a remote unlock's code goes (the controller), once it runs.
    public func onRemoteCode(_ handler: @escaping @Sendable (SecretDigits) async -> Void) {
        remoteCode = handler
    }

    /// Events waiting for the broker now.
    public var queuedEvents: Int { queue.count }

    /// The payload bytes of the events waiting now (each queued event is one payload).
    public var queuedBytes: Int { queue.reduce(0) { $0 + $1.count } }

    /// Reads the link's reports until cancelled.
    public func run() async {
        for await input in inbox {
            switch input {
            case .link(.state(let state)):
                connected = state == .connected
                note(.connection(state))
            case .link(.connected):
                connected = true
                announce(subscribe: true)
            case .link(.message(let message)):
                await received(message)
            case .reannounce:
                if connected { announce(subscribe: false) }
            }
        }
    }

    /// Availability, discovery and every known state, then what waited in the queue.
    private func announce(subscribe: Bool) {
        if subscribe {
            transport.subscribe(topics.homeAssistantStatus)
            transport.subscribe(topics.lockCommand)
        }
        send(topics.status, "online", retain: true)
        for config in discovery.configs { _ = transport.publish(topic: config.topic, payload: config.payload, retain: true) }
        publishStates()
        if droppedSinceConnect > 0 {
            logger.warning("mqtt events dropped while the broker was away; the journal has them all", metadata: ["dropped": "\(droppedSinceConnect)"])
            droppedSinceConnect = 0
        }
        while let first = queue.first {
            guard transport.publish(topic: topics.event, payload: first, retain: false) else { break }
            queue.removeFirst()
        }
    }

    private func publishStates() {
        send(topics.keypadProblem, keypadOK ? "OFF" : "ON", retain: true)
        publishLock()
        if let door { send(topics.door, door ? "ON" : "OFF", retain: true) }
        if let tamper { send(topics.tamper, tamper ? "ON" : "OFF", retain: true) }
        send(topics.mode, mode.rawValue, retain: true)
        if let lastUser { send(topics.lastUser, lastUser, retain: true) }
        for (address, problem) in readerProblems {
            send(topics.readerProblem(address), problem.down || problem.tamper || problem.powerFailed ? "ON" : "OFF", retain: true)
        }
    }

    /// The lock entity's state, from the relay.
    private func publishLock() {
        send(topics.lock, locked ? "LOCKED" : "UNLOCKED", retain: true)
    }

    @discardableResult
    private func send(_ topic: String, _ text: String, retain: Bool) -> Bool {
        guard connected else { return false }
        return transport.publish(topic: topic, payload: Array(text.utf8), retain: retain)
    }

    public func handle(_ event: TerminalEvent) async {
        switch event {
        case .attemptDecided(_, let kind, let outcome, _, let lockedOut, let provenance):
            let remote = provenance.remote
            switch outcome {
            case .denied where outcome.asksForPIN(after: kind):
                break  // a card whose PIN is asked for next: the decision is the next attempt's
            case .granted:
                if outcome.isDuress { emit("duress", user: outcome.user) }
                emit(remote ? "remote_unlock" : "granted", user: outcome.user)
                if let user = outcome.user {
                    lastUser = user
                    send(topics.lastUser, user, retain: true)
                }
            case .denied:
                emit("denied", user: nil)
                if lockedOut { emit("locked_out", user: nil) }
            case .unavailable:
                break
            }
        case .door(let unlocked, _):
            locked = !unlocked
            publishLock()
        case .doorInput(let input):
            switch input {
            case .opened: setDoor(true)
            case .closed: setDoor(false)
            case .heldOpen:
                setDoor(true)
                emit("held_open", user: nil)
            case .forcedOpen:
                setDoor(true)
                emit("forced_open", user: nil)
            case .tamper(let active):
                tamper = active
                send(topics.tamper, active ? "ON" : "OFF", retain: true)
            case .exitRequest:
                break
            }
        case .doorMode(let change):
            mode = change.mode
            send(topics.mode, change.mode.rawValue, retain: true)
        case .keypadHealth(let ok):
            keypadOK = ok
            send(topics.keypadProblem, ok ? "OFF" : "ON", retain: true)
        case .reader(let address, let report):
            var problem = readerProblems[address] ?? (false, false, false)
            switch report {
            case .online: problem.down = false
            case .offline, .refused: problem.down = true
            case .tamper(let active): problem.tamper = active
            case .power(let ok): problem.powerFailed = !ok
            }
            readerProblems[address] = problem
            send(topics.readerProblem(address), problem.down || problem.tamper || problem.powerFailed ? "ON" : "OFF", retain: true)
        default:
            break
        }
    }

    private func setDoor(_ open: Bool) {
        door = open
        send(topics.door, open ? "ON" : "OFF", retain: true)
    }

    /// One event message (never retained), or into the queue while the broker is away.
    private func emit(_ type: String, user: String?) {
        let payload = Array((#"{"event_type":"# + JSONValue.quoted(type) + (user.map { #","user":"# + JSONValue.quoted($0) } ?? "") + "}").utf8)
        if connected && queue.isEmpty && transport.publish(topic: topics.event, payload: payload, retain: false) { return }
        if queue.count >= HomeAssistantBridge.eventQueueLimit {
            queue.removeFirst()
            droppedSinceConnect += 1
            note(.eventsDropped(1))
        }
        queue.append(payload)
    }

    /// A message from the broker: Home Assistant's status, or a lock command. Anything else,
    /// and any command that is not exactly right, opens nothing; payloads are never logged.
    private func received(_ message: MQTTInbound) async {
        let payload = message.payload
        if message.topic == topics.homeAssistantStatus {
            if payload.equals("online") { scheduleReannounce() }
            return
        }
        guard message.topic == topics.lockCommand else { return ignore("unknown_topic", message) }
        guard !message.retained else {
            ignore("retained", message)
            return refuse("retained")
        }
        guard payload.count <= HomeAssistantBridge.maxCommandBytes else { return ignore("oversized", message) }
        let command: RemoteUnlockCommand
        switch payload.withBytes({ RemoteUnlockCommand.parse($0) }) {
        case .success(let parsed): command = parsed
        case .failure(let problem): return ignore(problem.rawValue, message)
        }
        switch command.action {
        case .lock:
            // The door locks by itself; say how it is.
            publishLock()
        case .open, .unlock:
            guard discovery.features.remoteUnlock else { return refuse("off") }
            guard let code = command.code else { return refuse("no_code") }
            guard let remoteCode else { return refuse("busy") }
            logger.notice("remote unlock command received", metadata: ["topic": "\(message.topic)"])
            await remoteCode(code)
        }
    }

    private func refuse(_ reason: String) {
        logger.warning("remote unlock refused", metadata: ["reason": "\(reason)"])
        publishEvent(.remoteUnlockRefused(reason: reason))
    }

    private func ignore(_ reason: String, _ message: MQTTInbound) {
        logger.warning("mqtt message ignored", metadata: ["reason": "\(reason)", "topic": "\(message.topic.prefix(200))", "bytes": "\(message.payload.count)"])
        note(.inboundIgnored(reason: reason))
    }

    private func scheduleReannounce() {
        let delay = Double.random(in: reannounceDelay)
        let continuation = inboxContinuation
        Task {
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            continuation.yield(.reannounce)
        }
    }

}
