import DurableStorage
import Foundation
import KeypadCore
import KeypadHTTPVerifier
import KeypadVerifier
import Logging

/// Delivers journal records to `events.url` in order, signed like verifier requests
/// (`webhook-id` = the record's id). The journal is the queue: the last delivered sequence
/// number is kept in `journal.cursor` (written durably), so records wait on disk while the
/// endpoint is down, survive restarts, and are delivered after it returns. A record is
/// resent only if its delivery was not confirmed, and always with the same id.
public actor EventForwarder {
    private let journal: TerminalJournal
    private let poster: SignedPoster
    private let cursorPath: String
    private let logger: Logger
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    public private(set) var delivered: Int
    private let clock: TerminalClock

    public init(journal: TerminalJournal, poster: SignedPoster, logger: Logger, clock: TerminalClock = .continuous) {
        self.clock = clock
        self.journal = journal
        self.poster = poster
        cursorPath = (journal.path as NSString).deletingLastPathComponent + "/journal.cursor"
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        delivered = Int((try? String(contentsOfFile: cursorPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    }

    /// Tells the forwarder new records are there.
    public nonisolated func notify() {
        wake.yield()
    }

    /// Forwards until cancelled.
    public func run() async {
        var backoff: Duration = .milliseconds(500)
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            let pending = (try? journal.records(after: delivered)) ?? []
            var failed = false
            for record in pending {
                guard let id = EventForwarder.id(of: record.line) else { continue }
                if await poster.post(body: Array(record.line.utf8), id: id) {
                    delivered = record.sequence
                    try? DurableFile.replace(path: cursorPath, contents: Array("\(delivered)\n".utf8))
                    backoff = .milliseconds(500)
                } else {
                    failed = true
                    break
                }
            }
            if failed {
                logger.warning("events endpoint unreachable; records stay queued on disk", metadata: ["queued": "\(pending.count)"])
                try? await clock.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(30))
            } else if await iterator.next() == nil {
                return // cancelled
            }
        }
    }

    static func id(of line: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
    }
}
