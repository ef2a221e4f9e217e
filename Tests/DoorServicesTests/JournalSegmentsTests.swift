import DoorServices
import Foundation
import Synchronization
import Testing

/// Journal v2 on disk: segments, the size bound, delivered-first retention, torn-line
/// repair, and reading from a stored position.
@Suite("Journal segments, retention and positions")
struct JournalSegmentsTests {
    func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("kp-segments-\(UUID())").path
    }

    func size(of directory: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("journal") && $0.hasSuffix(".jsonl") }
            .reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size] as? Int) ?? 0) }
    }

    func fill(_ journal: TerminalJournal, _ count: Int) throws {
        for n in 0..<count {
            try journal.append(type: "attempt", fields: [("decision", .text("granted")), ("latency_ms", .number(n % 97))])
        }
    }

    @Test func withoutForwardingTheSizeStaysWithinTheBoundAndTheNewestRecordsAreKept() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = try TerminalJournal(directory: path, maxBytes: 64 << 10)
        try fill(journal, 5_000)  // about 900 KB written
        let line = try #require(TerminalJournal.read(path: journal.path).last?.line)
        #expect(size(of: path) <= (64 << 10) + line.utf8.count + 1)
        #expect(journal.totalBytes == size(of: path))
        let kept = try journal.records(after: 0).map(\.sequence)
        #expect(kept.last == 5_000 && kept == Array(kept.first!...5_000))  // a contiguous tail
    }

    @Test func undeliveredRecordsAreKeptWhileThereIsRoomAndCountedWhenDropped() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lost = Mutex(0)
        let journal = try TerminalJournal(directory: path, maxBytes: 64 << 10, forwarding: true, dropped: { n in lost.withLock { $0 += n } })
        try fill(journal, 200)  // about 36 KB: fits
        #expect(try lost.withLock { $0 } == 0 && journal.records(after: 0).count == 200)
        journal.markDelivered(through: 200)
        try fill(journal, 200)
        #expect(lost.withLock { $0 } == 0)
        try fill(journal, 2_000)  // now more undelivered records than the budget holds
        let kept = try journal.records(after: 0)
        let first = try #require(kept.first?.sequence)
        // The delivered ones went first; the undelivered ones lost are exactly those counted.
        #expect(first > 200 && lost.withLock { $0 } == first - 201)
    }

    @Test func aTornLastLineIsCutAndJournaledAndTheNextRecordIsWhole() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let journal = try TerminalJournal(directory: path)
            try fill(journal, 3)
        }
        let handle = try #require(FileHandle(forWritingAtPath: path + "/journal.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data("{\"seq\":4,\"id\":\"torn".utf8))
        try handle.close()
        let reopened = try TerminalJournal(directory: path)
        try reopened.append(type: "stop", fields: [])
        let records = try TerminalJournal.read(path: reopened.path)
        #expect(records.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(records[3].line.contains("\"type\":\"journal_repaired\"") && records[3].line.contains("\"dropped_bytes\":19"))
        #expect(records[4].line.contains("\"type\":\"stop\""))
        #expect(records.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.line.utf8))) != nil })
    }

    @Test func readingInBatchesFromPositionsGetsEveryRecordOnceAcrossRotations() async throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = try TerminalJournal(directory: path, maxBytes: 1 << 20, forwarding: true)
        let writer = Task.detached { try self.fill(journal, 3_000) }  // rotates about 4 times
        var seen: [Int] = []
        var position: JournalPosition?
        var last = 0
        while seen.count < 3_000 {
            let batch = try journal.read(after: last, from: position, limit: 37)
            seen += batch.records.map(\.sequence)
            last = batch.records.last?.sequence ?? last
            position = batch.next
            if batch.records.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        }
        try await writer.value
        #expect(seen == Array(1...3_000))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasPrefix("journal-") }.count >= 3)
    }
}
