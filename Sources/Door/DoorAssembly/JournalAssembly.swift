import DoorConfig
import DoorServices
import DoorVerifierClient
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging

/// The audit journal in `state_dir` and, with `events:`, the forwarder that sends its records
/// to the site, signed.
enum JournalAssembly {
    /// The journal's sink for the bus and its forwarding (both nil without `events:`).
    static func journal(
        _ configuration: KioskPadConfiguration, directory: String, logger: Logger
    ) throws -> (sink: JournalSink, parts: JournalParts) {
        let daemon = configuration.daemon
        let file: TerminalJournal
        do {
            file = try TerminalJournal(
                directory: directory, maxBytes: daemon.journalMaxBytes, forwarding: daemon.events != nil,
                dropped: { count in
                    logger.error("journal full of undelivered records; the oldest were deleted", metadata: ["records": "\(count)"])
                })
        } catch {
            throw KeyedError(key: "state_dir", message: "cannot write the journal in \(directory): \(error)", kind: .unavailable(retryable: true))
        }
        var forwarder: EventForwarder?
        var poster: SignedPoster?
        if let events = daemon.events {
            let secret = try events.secret.map { try WebhookSecret(configured: $0, key: "events.secret") }
            let eventsPoster = try SignedPoster(
                urls: [events.url] + events.otherURLs, terminalID: configuration.terminalID, secret: secret, allowInsecureHTTP: events.allowInsecureHTTP,
                logger: logger)
            poster = eventsPoster
            forwarder = EventForwarder(journal: file, poster: eventsPoster, logger: logger)
        }
        let wake = forwarder
        let sink = JournalSink(journal: file, terminalID: configuration.terminalID, logger: logger) { wake?.notify() }
        return (sink, JournalParts(forwarder: forwarder, poster: poster))
    }
}
