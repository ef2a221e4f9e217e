import Foundation
import KeypadHAL
import KeypadHTTPVerifier
import KeypadVerifier
import KioskPad
import KioskPadConfig
import Logging
import ServiceLifecycle

/// Everything around entry that a door terminal needs, built from config: the door relay
/// and feedback outputs, the audit journal and its forwarder, metrics, health, and the
/// loopback metrics endpoint. `kioskpad run` uses all of it; `kioskpad simulate` only the
/// journal, events and metrics, and only when its config asks for them.
public final class DaemonServices: Sendable {
    public let door: DoorRelay?
    public let journal: JournalSink?
    public let forwarder: EventForwarder?
    public let metrics: TerminalMetrics
    public let health: HealthState
    public let sinks: [any TerminalEventSink]
    private let poster: SignedPoster?
    private let metricsService: (any Service)?
    private let feedback: FeedbackPlayer?

    /// A component that failed to start, naming its config key.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(
        configuration: KioskPadConfiguration, stateDirectory: String?, outputs: Bool, logger: Logger,
        metricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        let daemon = configuration.daemon
        let metrics = TerminalMetrics()
        let health = HealthState()
        self.metrics = metrics
        self.health = health
        var sinks: [any TerminalEventSink] = [health, metrics]

        var journal: JournalSink?
        var forwarder: EventForwarder?
        var poster: SignedPoster?
        if let directory = stateDirectory {
            let file: TerminalJournal
            do {
                file = try TerminalJournal(directory: directory)
            } catch {
                throw StartError(description: "state_dir: cannot write the journal in \(directory): \(error)")
            }
            if let events = daemon.events {
                let secret = try events.secret.map { source in
                    do {
                        return try WebhookSecret(reading: source)
                    } catch {
                        throw StartError(description: "events.secret: \(error)")
                    }
                }
                do {
                    poster = try SignedPoster(url: events.url, secret: secret, allowInsecureHTTP: events.allowInsecureHTTP, logger: logger)
                } catch {
                    throw StartError(description: "\(error)")
                }
                forwarder = EventForwarder(journal: file, poster: poster!, logger: logger)
            }
            let wake = forwarder
            journal = JournalSink(journal: file, terminalID: configuration.terminalID, logger: logger) { wake?.notify() }
            sinks.append(journal!)
        }
        var door: DoorRelay?
        var feedback: FeedbackPlayer?
        if outputs {
            func line(_ config: OutputLineConfiguration, _ key: String) throws -> GPIOOutputLine {
                do {
                    return try GPIOOutputLine(config, key: key)
                } catch {
                    throw StartError(description: "\(error)")
                }
            }
            if let config = daemon.door {
                let relayJournal = journal
                door = try DoorRelay(
                    output: try line(config.relay, "door.relay"), defaultUnlock: config.unlock, maxUnlock: config.maxUnlock,
                    logger: logger,
                    observer: { on, seconds in
                        if on {
                            metrics.doorUnlocked()
                            await relayJournal?.record("door_unlocked", [("seconds", .number(seconds))])
                        } else {
                            await relayJournal?.record("door_locked", [])
                        }
                    })
                sinks.insert(door!, at: 0) // the relay reacts first
            }
            if let config = daemon.feedback {
                feedback = FeedbackPlayer(
                    buzzer: try config.buzzer.map { try line($0, "feedback.buzzer") },
                    grantedLED: try config.grantedLED.map { try line($0, "feedback.led_granted") },
                    deniedLED: try config.deniedLED.map { try line($0, "feedback.led_denied") })
                sinks.append(feedback!)
            }
        }
        self.door = door
        self.feedback = feedback
        self.journal = journal
        self.forwarder = forwarder
        self.poster = poster
        self.sinks = sinks
        if let listen = daemon.metrics {
            var serverLogger = logger
            serverLogger.logLevel = .warning
            metricsService = MetricsServer.application(
                metrics: metrics, health: health, host: listen.host, port: listen.port, logger: serverLogger,
                onRunning: metricsRunning)
        } else {
            metricsService = nil
        }
    }

    /// Background services to run in the service group (metrics endpoint, forwarder).
    public var services: [any Service] {
        var list: [any Service] = []
        if let metricsService { list.append(metricsService) }
        if let forwarder { list.append(ForwarderService(forwarder: forwarder)) }
        return list
    }

    /// Door off first, then a stop record, then connections closed.
    public func shutdown() async {
        door?.shutdown()
        await journal?.record("stop", [])
        await poster?.shutdown()
    }
}

/// Runs the event forwarder until the service group shuts down.
struct ForwarderService: Service {
    let forwarder: EventForwarder
    func run() async throws {
        await cancelWhenGracefulShutdown {
            await forwarder.run()
        }
    }
}
