// The event forwarder's cost per record, early and late in a long journal: it reads from a
// stored byte position, so forwarding the last 1,000 of 100,000 records should cost what
// the first 1,000 cost. The endpoint is a real HTTP server on loopback (the tests' recording
// server, in this process). The fixture also forwards all 100,000 records once and prints
// how many distinct record ids arrived, the journal's bytes per attempt record, and the
// bytes on disk after 100,000 attempts with the default journal.max_bytes.
// Run: cd Benchmarks && swift package --disable-sandbox benchmark --target JournalForwarding
import Benchmark
import DoorServices
import DoorVerifierClient
import Foundation
import KeypadTestSupport
import Logging
import SmokeRun
import Synchronization

/// Posts through a real ``SignedPoster`` to the loopback server, counts the records in each
/// delivered batch (from the `<id>.<count>` webhook-id), and says when `target` have arrived.
final class CountingPoster: EventPosting {
    private let poster: SignedPoster
    private let state = Mutex((count: 0, target: 0, done: nil as AsyncStream<Void>.Continuation?))

    init(poster: SignedPoster) {
        self.poster = poster
    }

    func expect(_ target: Int) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        state.withLock { $0 = (0, target, continuation) }
        return stream
    }

    func post(body: [UInt8], id: String) async -> PostOutcome {
        let outcome = await poster.post(body: body, id: id)
        guard outcome == .delivered else { return outcome }
        let records = Int(id.split(separator: ".").last ?? "") ?? 0
        state.withLock { state in
            state.count += records
            if state.count >= state.target { state.done?.finish() }
        }
        return outcome
    }
}

/// A journal of 100,000 attempt records in /dev/shm (so the fixture's fsyncs are cheap),
/// with the positions after record 0 and after record 99,000.
struct JournalFixture: Sendable {
    static let records = 100_000
    let journal: TerminalJournal
    let late: (sequence: Int, position: JournalPosition)
    let server: RecordingHTTPServer
    let poster: CountingPoster

    static let shared: JournalFixture = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let directory = base + "/kp-bench-journal-\(getpid())"
        let journal = try! TerminalJournal(directory: directory, maxBytes: 1 << 30, forwarding: true)
        for n in 0..<records { try! append(n, to: journal) }
        var position: JournalPosition?
        var last = 0
        while last < records - 1_000 {
            let batch = try! journal.read(after: last, from: position, limit: min(1_000, records - 1_000 - last))
            last = batch.records.last!.sequence
            position = batch.next
        }
        let bytes = journal.totalBytes
        FileHandle.standardError.write(Data("journal: \(records) attempt records, \(bytes) bytes, \(bytes / records) bytes per record\n".utf8))
        // The size bound: 100,000 attempts into a journal with the default budget, nothing forwarding.
        let bounded = try! TerminalJournal(directory: directory + "-bounded")
        for n in 0..<records { try! append(n, to: bounded) }
        FileHandle.standardError.write(
            Data("journal.max_bytes \(TerminalJournal.defaultMaxBytes): after \(records) attempts \(bounded.totalBytes) bytes on disk\n".utf8))
        try? FileManager.default.removeItem(atPath: directory + "-bounded")
        let server = try! RecordingHTTPServer(.respond(status: 200, body: "{}"))
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let signed = try! SignedPoster(url: "http://127.0.0.1:\(server.port)/events", terminalID: "bench", secret: .generate(), logger: logger)
        return JournalFixture(journal: journal, late: (last, position!), server: server, poster: CountingPoster(poster: signed))
    }()

    /// Forwards every record once to the loopback server and prints what arrived.
    func forwardAllOnce() async {
        let before = server.requests.count
        await forward(after: 0, from: nil, count: JournalFixture.records)
        let ids = server.requests.dropFirst(before).flatMap { request -> [String] in
            let envelopes = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [[String: Any]]) ?? []
            return envelopes.compactMap { ($0["data"] as? [String: Any])?["id"] as? String }
        }
        FileHandle.standardError.write(
            Data(
                "forwarded \(JournalFixture.records) records: \(ids.count) arrived, \(Set(ids).count) distinct ids, \(server.requests.count - before) requests\n"
                    .utf8))
    }

    static func append(_ n: Int, to journal: TerminalJournal) throws {
        try journal.append(
            type: "attempt",
            fields: [
                ("terminal_id", .text("door-1")), ("attempt_id", .text(UUID().uuidString.lowercased())), ("kind", .text("pin")),
                ("decision", .text(n % 3 == 0 ? "denied" : "granted")), ("latency_ms", .number(40 + n % 50)),
                ("user", .text("user-\(n % 40)")),
            ])
    }

    /// Forwards `count` records starting after `sequence` (cursor at `position`).
    func forward(after sequence: Int, from position: JournalPosition?, count: Int = 1_000) async {
        let cursor = journal.directory + "/journal.cursor"
        let text = position.map { "\(sequence) \($0.segment) \($0.offset)\n" } ?? "\(sequence)\n"
        try! text.write(toFile: cursor, atomically: true, encoding: .utf8)
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let done = poster.expect(count)
        let forwarder = EventForwarder(journal: journal, poster: poster, logger: logger)
        let run = Task { await forwarder.run() }
        for await _ in done {}
        run.cancel()
        await run.value
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal], warmupIterations: 3, maxDuration: .seconds(10), maxIterations: 50)

    Benchmark("forward all 100,000 records once (prints what arrived)", configuration: .init(warmupIterations: 0, maxIterations: 1)) { benchmark in
        let fixture = JournalFixture.shared
        benchmark.startMeasurement()
        await fixture.forwardAllOnce()
        benchmark.stopMeasurement()
    }

    Benchmark("forward 1,000 records: the first of 100,000") { benchmark in
        let fixture = JournalFixture.shared
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            await fixture.forward(after: 0, from: nil)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("forward 1,000 records: the last of 100,000") { benchmark in
        let fixture = JournalFixture.shared
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            await fixture.forward(after: fixture.late.sequence, from: fixture.late.position)
        }
        benchmark.stopMeasurement()
    }
    SmokeRun.clampIfAsked()
}
