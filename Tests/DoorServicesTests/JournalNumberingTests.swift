import DoorServices
import Foundation
import Testing

/// The journal and the audit log share one fsynced JSON-lines writer; the journal numbers
/// its lines inside that writer's lock.
@Suite("Journal numbering on the shared JSON-lines writer")
struct JournalNumberingTests {
    @Test func concurrentAppendsGetEveryNumberOnceInFileOrder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-seq-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try TerminalJournal(directory: directory)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for n in 0..<50 {
                        _ = try? journal.append(type: "test", fields: [("writer", .number(writer)), ("n", .number(n)), ("note", .text("a \"quoted\"\nline"))])
                    }
                }
            }
        }
        let records = try TerminalJournal.read(path: journal.path)
        #expect(records.map(\.sequence) == Array(1...400), "numbers in file order, none repeated or skipped")
        // A reopened journal continues after the last number.
        let reopened = try TerminalJournal(directory: directory)
        #expect(try reopened.append(type: "test", fields: []) == 401)
    }
}
