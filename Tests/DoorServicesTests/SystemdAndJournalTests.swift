import DoorController
import DoorServices
import Foundation
import KioskPadCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("sd_notify, journal, health")
struct SystemdAndJournalTests {
    @Test func notifiesReadinessAndWatchdogOverTheNotifySocket() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kp-notify-\(UUID().uuidString.prefix(8))").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer {
            close(fd)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000"])
        #expect(notifier.watchdogInterval == .seconds(15))
        notifier.ready(status: "terminal ready")
        notifier.watchdog()
        var buffer = [UInt8](repeating: 0, count: 256)
        let first = recv(fd, &buffer, buffer.count, 0)
        #expect(String(decoding: buffer[0..<max(first, 0)], as: UTF8.self) == "READY=1\nSTATUS=terminal ready")
        let second = recv(fd, &buffer, buffer.count, 0)
        #expect(String(decoding: buffer[0..<max(second, 0)], as: UTF8.self) == "WATCHDOG=1")
        #expect(!SystemdNotifier(environment: [:]).send("READY=1"))
    }

    @Test func journalSequenceNumbersContinueAcrossRestartsAndTornLinesAreRepaired() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-journal-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let journal = try TerminalJournal(directory: directory)
            #expect(try journal.append(type: "start", fields: []) == 1)
            #expect(try journal.append(type: "attempt", fields: [("decision", .text("granted")), ("latency_ms", .number(12))]) == 2)
        }
        // A crash mid-write leaves half a line.
        let handle = FileHandle(forWritingAtPath: directory + "/journal.jsonl")!
        handle.seekToEndOfFile()
        handle.write(Data("{\"seq\":3,\"id\":\"x".utf8))
        try handle.close()
        // Reopened, the torn line is cut off and a journal_repaired record says so.
        let reopened = try TerminalJournal(directory: directory)
        #expect(try reopened.records(after: 0).map(\.sequence) == [1, 2, 3])
        #expect(try reopened.append(type: "stop", fields: []) == 4)
        let line = try reopened.records(after: 1).first!.line
        #expect(line.contains("\"latency_ms\":12") && line.contains("\"type\":\"attempt\""))
    }

    @Test func healthFollowsTheKeypadAndTheVerifierPath() async {
        let health = HealthState()
        #expect(health.healthy)
        await health.handle(decided(.unavailable))
        #expect(!health.healthy && health.summary.contains("verifier unavailable"))
        await health.handle(decided(.denied()))
        #expect(health.healthy)
        await health.handle(.keypadHealth(ok: false))
        #expect(!health.healthy && !health.keypadOK)
    }

    @Test func anOSDPReaderOfflineOrRefusedMakesTheDoorUnhealthyUntilItIsBack() async {
        let health = HealthState()
        await health.handle(.reader(address: 1, report: .online(secure: true)))
        await health.handle(.reader(address: 2, report: .tamper(active: true)))
        #expect(health.healthy)
        await health.handle(.reader(address: 1, report: .offline))
        await health.handle(.reader(address: 2, report: .refused(reason: "key")))
        #expect(!health.healthy && health.summary == "keypad ok, readers 1, 2 offline, verifier ok")
        await health.handle(.reader(address: 1, report: .online(secure: true)))
        #expect(health.summary == "keypad ok, reader 2 offline, verifier ok")
        await health.handle(.reader(address: 2, report: .online(secure: true)))
        #expect(health.healthy && health.summary == "keypad ok, verifier ok")
    }
}
