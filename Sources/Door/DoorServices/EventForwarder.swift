import DoorVerifierClient
import Foundation
import KioskPadCore
import KioskPadStorage
import KioskPadThreads
import Logging

/// Where forwarded records go: ``SignedPoster`` in production.
public protocol EventPosting: Sendable {
    func post(body: [UInt8], id: String) async -> PostOutcome
}

extension SignedPoster: EventPosting {}

/// Delivers journal records to `events.url` in order, in batches of up to `batchSize`, each
/// record in the Standard Webhooks envelope (`{"type": "kioskpad.attempt", "timestamp":
/// ..., "data": {record}}`), a batch a JSON array signed as one body. `webhook-id` is the
/// first record's id and the count (`<id>.<n>`); a batch is resent unchanged until it is
/// answered, so a retry keeps its id. Receivers deduplicate on each record's `data.id`.
///
/// The journal is the queue: the last delivered sequence number and the byte position
/// after it are kept in `journal.cursor` (written durably), so each record is read once, and
/// records wait on disk while the endpoint is down, across restarts. A 2xx delivers the
/// batch; any other 4xx (but 408 and 429) moves it to `journal.deadletter.jsonl` with the
/// status, and the next is sent; a 5xx, 408, 429 or no answer is retried with back-off
/// (0.5 s doubling to 30 s), or after the answer's `Retry-After` when that is longer (a site
/// server's event quota), at most ``longestServerWait``.
public actor EventForwarder {
    public static let defaultBatchSize = 50
    /// The longest a `Retry-After` holds the next try back: a quota raised at the site is
    /// used within this, even when the door was told to wait until midnight.
    public static let longestServerWait: Duration = .seconds(900)

    private let journal: TerminalJournal
    private let poster: any EventPosting
    private let cursorPath: String
    /// A post is out (``deliver(_:)``), and who waits to post next.
    private var posting = false
    private var postWaiters: [CheckedContinuation<Void, Never>] = []
    private let deadLetterPath: String
    private let logger: Logger
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    private let batchSize: Int
    private let clock: TerminalClock
    public private(set) var delivered: Int
    private var position: JournalPosition?
    /// Records moved to the dead-letter file so far (this run).
    public private(set) var deadLettered = 0

    public init(
        journal: TerminalJournal, poster: any EventPosting, logger: Logger, clock: TerminalClock = .continuous,
        batchSize: Int = EventForwarder.defaultBatchSize
    ) {
        self.clock = clock
        self.journal = journal
        self.poster = poster
        self.batchSize = max(1, batchSize)
        cursorPath = journal.directory + "/journal.cursor"
        deadLetterPath = journal.directory + "/journal.deadletter.jsonl"
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // "SEQ SEGMENT OFFSET"; an older cursor holds only SEQ.
        let fields = ((try? String(contentsOfFile: cursorPath, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        delivered = fields.first ?? 0
        position = fields.count == 3 ? JournalPosition(segment: fields[1], offset: fields[2]) : nil
        journal.markDelivered(through: delivered)
    }

    /// Tells the forwarder new records are there.
    public nonisolated func notify() {
        wake.yield()
    }

    /// Forwards until cancelled.
    public func run() async {
        var backoff: Duration = .milliseconds(500)
        var iterator = wakes.makeAsyncIterator()
        var pending: (records: [(sequence: Int, line: String)], next: JournalPosition)?
        var failing = false
        while !Task.isCancelled {
            if pending == nil {
                do {
                    let batch = try journal.read(after: delivered, from: position, limit: batchSize)
                    if batch.records.isEmpty {
                        position = batch.next
                        if await iterator.next() == nil { return }  // cancelled
                        continue
                    }
                    pending = batch
                } catch {
                    logger.error("journal read failed; forwarding waits", metadata: ["error": "\(error)"])
                    try? await clock.sleep(for: backoff)
                    backoff = min(backoff * 2, .seconds(30))
                    continue
                }
            }
            guard let batch = pending else { continue }
            if case .again(let asked) = await deliver(batch) {
                if !failing {
                    logger.warning("events endpoint unavailable; records stay queued on disk and are retried")
                    failing = true
                }
                try? await clock.sleep(for: max(backoff, asked))
                backoff = min(backoff * 2, .seconds(30))
                continue
            }
            pending = nil
            failing = false
            backoff = .milliseconds(500)
        }
    }

    /// Sends what is journaled and not yet delivered, for at most `limit`, without back-off:
    /// a terminal that stops calls it so its last records (the last grant, the stop) are not
    /// left waiting for the next start. True when nothing is left; what is left stays queued
    /// on disk for the next start.
    public func drain(within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.sendQueued() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Posts batch after batch until the journal has nothing undelivered (true) or a batch is
    /// not confirmed (false).
    private func sendQueued() async -> Bool {
        while !Task.isCancelled {
            let (journal, delivered, position, batchSize) = (self.journal, self.delivered, self.position, self.batchSize)
            // Reads, writes and fsyncs on the file thread (WorkThreads.files), never a cooperative one.
            guard let batch = try? await WorkThreads.files.run({ try journal.read(after: delivered, from: position, limit: batchSize) }) else { return false }
            guard !batch.records.isEmpty else { return true }
            guard case .done = await deliver(batch) else { return false }
        }
        return false
    }

    /// Posts one batch: ``Delivery/done`` when it is delivered or refused for good (and
    /// dead-lettered), else when it may be sent again.
    /// One post at a time: ``run()`` and ``drain(within:)`` both send, and the actor lets one
    /// in while the other waits on its post. The second waits for the first to be answered
    /// (and the cursor moved), then skips what that delivered: without this a stop during a
    /// post sent the same records again.
    private func deliver(_ batch: (records: [(sequence: Int, line: String)], next: JournalPosition)) async -> Delivery {
        while posting { await withCheckedContinuation { postWaiters.append($0) } }
        posting = true
        defer {
            posting = false
            if !postWaiters.isEmpty { postWaiters.removeFirst().resume() }
        }
        if let last = batch.records.last?.sequence, last <= delivered { return .done }
        let (body, id) = EventForwarder.envelope(batch.records)
        // Not cut short when the forwarder is cancelled (a stop): a post cancelled after the
        // server had the batch left the cursor behind, and the drain sent the batch again.
        // It ends within the poster's own timeout.
        let poster = self.poster
        let outcome = await Task { await poster.post(body: body, id: id) }.value
        switch outcome {
        case .delivered:
            await advance(to: batch)
            return .done
        case .answered(let status) where (400..<500).contains(status) && status != 408 && status != 429:
            await deadLetter(batch.records, status: status)
            await advance(to: batch)
            return .done
        case .busy(let wait):
            return .again(notBefore: min(wait, Self.longestServerWait))
        case .answered, .failed:
            return .again(notBefore: .zero)
        }
    }

    /// How posting a batch ended: done with (delivered, or dead-lettered), or to be sent
    /// again, not before what the server's `Retry-After` asked (zero when it asked nothing).
    private enum Delivery {
        case done
        case again(notBefore: Duration)
    }

    private func advance(to batch: (records: [(sequence: Int, line: String)], next: JournalPosition)) async {
        delivered = batch.records.last?.sequence ?? delivered
        position = batch.next
        let (path, cursor, journal, delivered) = (
            cursorPath, Array("\(delivered) \(batch.next.segment) \(batch.next.offset)\n".utf8), self.journal, self.delivered
        )
        _ = try? await WorkThreads.files.run {
            try DurableFile.replace(path: path, contents: cursor)
            journal.markDelivered(through: delivered)
        }
    }

    private func deadLetter(_ records: [(sequence: Int, line: String)], status: Int) async {
        logger.error(
            "events endpoint refused records; moved to the dead-letter file",
            metadata: [
                "status": "\(status)", "records": "\(records.count)", "path": "\(deadLetterPath)",
            ])
        let path = deadLetterPath
        do {
            try await WorkThreads.files.run {
                let file = try JSONLinesFile(path: path)
                let now = UTCTimestamp.rfc3339(Date())
                for record in records {
                    try file.append([("status", .number(status)), ("dead_at", .text(now)), ("record", .json(record.line))])
                }
            }
            deadLettered += records.count
        } catch {
            logger.error("dead-letter write failed", metadata: ["error": "\(error)"])
        }
    }

    /// The batch as a JSON array of Standard Webhooks envelopes, and its `webhook-id`.
    static func envelope(_ records: [(sequence: Int, line: String)]) -> (body: [UInt8], id: String) {
        var firstID = ""
        let items = records.map { record -> String in
            let object = (try? JSONSerialization.jsonObject(with: Data(record.line.utf8)) as? [String: Any]) ?? [:]
            if firstID.isEmpty { firstID = object["id"] as? String ?? "seq-\(record.sequence)" }
            let type = JSONValue.quoted("kioskpad." + (object["type"] as? String ?? "record"))
            let timestamp = JSONValue.quoted(object["time"] as? String ?? "")
            return "{\"type\":\(type),\"timestamp\":\(timestamp),\"data\":\(record.line)}"
        }
        return (Array(("[" + items.joined(separator: ",") + "]").utf8), "\(firstID).\(records.count)")
    }
}
