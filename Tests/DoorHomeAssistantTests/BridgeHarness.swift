import DoorController
import DoorHomeAssistant
import Foundation
import KeypadTestSupport
import KioskPadCore
import Logging
import Synchronization
import TestPeers

/// A link and bridge as a terminal runs them, against a ``MosquittoTestBroker``, with what
/// they report kept for the test: notes, events put on the bus, log lines, remote codes.
final class BridgeHarness: Sendable {
    let link: MQTTLink
    let bridge: HomeAssistantBridge
    let topics: HomeAssistantTopics
    private let recorded = Recorded()
    let logs = LogLines()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(
        broker: MosquittoTestBroker, password: String? = nil, tls: Bool = false, terminalID: String = "door-1",
        features: HomeAssistantDiscovery.Features = .init(doorContact: true, tamper: true, remoteUnlock: true)
    ) {
        topics = HomeAssistantTopics(base: "kioskpad/\(terminalID)", prefix: "homeassistant")
        let settings = MQTTLinkSettings(
            host: "127.0.0.1", port: tls ? broker.tlsPort : broker.port, tls: tls, caFile: tls ? broker.caFile : nil,
            username: broker.username, password: password ?? broker.password, clientID: "kioskpad-\(terminalID)",
            keepalive: 5, will: (topics.status, "offline"))
        let logs = self.logs
        var logger = Logger(label: "test") { _ in LogLines.Handler(lines: logs) }
        logger.logLevel = .debug
        let inbox = HomeAssistantBridge.makeInbox()
        link = MQTTLink(settings: settings, logger: logger) { inbox.1.yield(.link($0)) }
        let recorded = self.recorded
        bridge = HomeAssistantBridge(
            transport: link, inbox: inbox,
            discovery: HomeAssistantDiscovery(topics: topics, terminalID: terminalID, version: "test", features: features),
            logger: logger, reannounceDelay: 0.05...0.1,
            note: { note in recorded.state.withLock { $0.notes.append(note) } },
            publishEvent: { event in recorded.state.withLock { $0.events.append(event) } })
    }

    func start() async {
        await bridge.onRemoteCode { [recorded] code in recorded.state.withLock { $0.codes.append(code.count) } }
        let link = self.link
        let bridge = self.bridge
        task.withLock {
            $0 = Task {
                await withDiscardingTaskGroup { group in
                    group.addTask { await bridge.run() }
                    group.addTask { await link.run() }
                }
            }
        }
    }

    /// Cancels the link (it publishes `offline` and disconnects) and the bridge.
    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }

    var notes: [HomeAssistantBridge.Note] { recorded.state.withLock { $0.notes } }
    var busEvents: [TerminalEvent] { recorded.state.withLock { $0.events } }
    /// How many digits each remote code handed to the controller had.
    var remoteCodes: [Int] { recorded.state.withLock { $0.codes } }

    /// Waits up to `seconds` for `condition`.
    func wait(seconds: Double = 10, _ condition: @Sendable () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }

    func connected(within seconds: Double = 10) async -> Bool {
        await wait(seconds: seconds) { self.link.connection == .connected }
    }
}

/// What the bridge reported: notes, events put on the bus, remote codes' lengths.
final class Recorded: Sendable {
    let state = Mutex<(notes: [HomeAssistantBridge.Note], events: [TerminalEvent], codes: [Int])>(([], [], []))
}
