import DoorServices
import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import Testing

/// The forwarder against a real loopback endpoint: batches in the Standard Webhooks
/// envelope, the dead-letter file for a 4xx, and restart after a power cut.
@Suite("Event forwarder", .serialized, .heavy)
struct EventForwarderTests {
    let logger = Logger(label: "test")

    func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("kp-forward-\(UUID())").path
    }

    /// Every envelope the endpoint got, in order.
    func envelopes(_ server: RecordingHTTPServer) -> [[String: Any]] {
        server.requests.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.body)) as? [[String: Any]]) ?? [] }
    }

    /// Runs a forwarder until `done` says so (asked every 20 ms, 10 s at most), then stops it.
    func forward(
        _ journal: TerminalJournal, to server: RecordingHTTPServer, until done: @escaping @Sendable (EventForwarder) async -> Bool
    ) async throws -> EventForwarder {
        let poster = try SignedPoster(url: "http://127.0.0.1:\(server.port)/events", terminalID: "door-1", secret: WebhookSecret.generate(), logger: logger)
        let forwarder = EventForwarder(journal: journal, poster: poster, logger: logger, batchSize: 10)
        let run = Task { await forwarder.run() }
        for _ in 0..<500 where !(await done(forwarder)) { try await Task.sleep(for: .milliseconds(20)) }
        run.cancel()
        await run.value
        await poster.shutdown()
        return forwarder
    }

    @Test func recordsGoInBatchesOfEnvelopesInOrderEachOnce() async throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = try TerminalJournal(directory: path, forwarding: true)
        for n in 0..<25 { try journal.append(type: "attempt", fields: [("n", .number(n))]) }
        let server = try RecordingHTTPServer(.respond(status: 200, body: "{}"))
        defer { server.stop() }
        _ = try await forward(journal, to: server) { _ in envelopesCount(server) >= 25 }
        let got = envelopes(server)
        #expect(got.count == 25 && server.requests.count == 3)  // 10 + 10 + 5
        #expect(got.allSatisfy { $0["type"] as? String == "kioskpad.attempt" && $0["timestamp"] is String })
        let data = got.compactMap { $0["data"] as? [String: Any] }
        #expect(data.compactMap { $0["seq"] as? Int } == Array(1...25))
        let firstID = try #require(data.first?["id"] as? String)
        #expect(server.requests.first?.headers["webhook-id"] == "\(firstID).10")
        #expect(server.requests.first?.headers["kioskpad-terminal"] == "door-1")
    }

    @Test func aRefusedBatchGoesToTheDeadLetterFileAndTheNextIsDelivered() async throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = try TerminalJournal(directory: path, forwarding: true)
        for n in 0..<12 { try journal.append(type: "attempt", fields: [("n", .number(n))]) }
        let server = try RecordingHTTPServer(.statusesInTurn([400, 200]))
        defer { server.stop() }
        // Stopped once the second batch's answer is counted, not as soon as it was sent.
        let forwarder = try await forward(journal, to: server) { await $0.delivered >= 12 }
        let (deadLettered, delivered) = (await forwarder.deadLettered, await forwarder.delivered)
        #expect(deadLettered == 10 && delivered == 12 && server.requests.count == 2)
        let dead = try TerminalJournal.read(path: path + "/journal.deadletter.jsonl")
        #expect(dead.isEmpty)  // lines there have no seq of their own: read them as JSON
        let lines = try String(contentsOfFile: path + "/journal.deadletter.jsonl", encoding: .utf8).split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 10 && objects.allSatisfy { $0["status"] as? Int == 400 })
        #expect(objects.compactMap { ($0["record"] as? [String: Any])?["seq"] as? Int } == Array(1...10))
        let second = try #require(server.requests.last)
        let after = (try JSONSerialization.jsonObject(with: Data(second.body)) as? [[String: Any]]) ?? []
        #expect(after.compactMap { ($0["data"] as? [String: Any])?["seq"] as? Int } == [11, 12])
    }

    @Test func aServerErrorIsRetriedWithTheSameBatchAndID() async throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = try TerminalJournal(directory: path, forwarding: true)
        for n in 0..<3 { try journal.append(type: "attempt", fields: [("n", .number(n))]) }
        let server = try RecordingHTTPServer(.statusesInTurn([503, 200]))
        defer { server.stop() }
        let forwarder = try await forward(journal, to: server) { await $0.delivered >= 3 }
        let (deadLettered, delivered) = (await forwarder.deadLettered, await forwarder.delivered)
        #expect(delivered == 3 && deadLettered == 0)
        #expect(server.requests.count == 2 && server.requests[0].body == server.requests[1].body)
        #expect(server.requests[0].headers["webhook-id"] == server.requests[1].headers["webhook-id"])
    }

    /// A site server's event quota answers 429 with `Retry-After`: the batch is sent again
    /// after that, not after the first back-off of 0.5 s.
    @Test func aBatchOverTheSitesQuotaIsSentAgainAfterItsRetryAfter() async throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = try TerminalJournal(directory: path, forwarding: true)
        for n in 0..<3 { try journal.append(type: "attempt", fields: [("n", .number(n))]) }
        let server = try RecordingHTTPServer(.overQuotaOnce(retryAfter: 2))
        defer { server.stop() }
        let forwarder = try await forward(journal, to: server) { await $0.delivered >= 3 }
        #expect(await forwarder.delivered == 3 && server.requests.count == 2)
        let waited = server.requests[1].at - server.requests[0].at
        #expect(waited >= .milliseconds(1_900), "sent again after \(waited)")
        #expect(server.requests[0].body == server.requests[1].body)
    }

    @Test func afterAPowerCutMidRecordEveryCompleteRecordIsDeliveredOnce() async throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try RecordingHTTPServer(.respond(status: 200, body: "{}"))
        defer { server.stop() }
        do {
            let journal = try TerminalJournal(directory: path, forwarding: true)
            for n in 0..<15 { try journal.append(type: "attempt", fields: [("n", .number(n))]) }
            _ = try await forward(journal, to: server) { _ in envelopesCount(server) >= 15 }
            for n in 15..<20 { try journal.append(type: "attempt", fields: [("n", .number(n))]) }
        }
        // The power goes mid-write: the file ends in half a record.
        let handle = try #require(FileHandle(forWritingAtPath: path + "/journal.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data("{\"seq\":21,\"id\":\"half".utf8))
        try handle.close()
        let journal = try TerminalJournal(directory: path, forwarding: true)
        try journal.append(type: "start", fields: [])
        _ = try await forward(journal, to: server) { _ in envelopesCount(server) >= 22 }
        let seqs = envelopes(server).compactMap { ($0["data"] as? [String: Any])?["seq"] as? Int }
        #expect(seqs == Array(1...22))  // 20 attempts, journal_repaired, start: each once
        let types = envelopes(server).compactMap { $0["type"] as? String }
        #expect(types.suffix(2) == ["kioskpad.journal_repaired", "kioskpad.start"])
    }
}

func envelopesCount(_ server: RecordingHTTPServer) -> Int {
    server.requests.reduce(0) { $0 + (((try? JSONSerialization.jsonObject(with: Data($1.body))) as? [Any])?.count ?? 0) }
}
