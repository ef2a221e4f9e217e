import Foundation
import KeypadTestSupport
import TestPeers
import Testing

/// An idle terminal wakes no thread: after some use, with the journal and the metrics
/// endpoint on, the whole `kioskpad simulate` process makes at most 4 context switches in
/// 10 s (libdispatch's pool, the runtime's default, alone made 10: see docs/architecture.md).
@Suite("Idle wake-ups of the real binary", .serialized, .heavy)
struct IdleWakeupsTests {
    @Test func anIdleTerminalWithJournalAndMetricsWakesAtMostFourTimesInTenSeconds() async throws {
        let (total, woken) = try await Self.wakeupsWhileIdle(extraConfig: "")
        #expect(total <= 4, "threads woken in 10 s of idle: \(woken)")
    }

    /// With `mqtt:`, connected to a real mosquitto (keepalive 60 s): libmosquitto's loop
    /// waits for its socket, and the link has no timer while it is up.
    @Test func anIdleTerminalConnectedToItsBrokerWakesAtMostFourTimesInTenSeconds() async throws {
        // Stopped at the end, or on a thread of its own when it goes away after a failure.
        let broker = try await MosquittoTestBroker.started()
        let mqtt = """
            mqtt:
              url: mqtt://127.0.0.1:\(broker.port)
              username: \(broker.username)
              password_file: \(broker.passwordFile)
            """
        let (total, woken) = try await Self.wakeupsWhileIdle(extraConfig: mqtt, connectedTo: broker)
        #expect(total <= 4, "threads woken in 10 s of idle: \(woken)")
        await broker.stop()
    }

    /// Context switches of every thread of an idle `kioskpad simulate` in 10 s, after a grant
    /// and a denial; and which threads they were.
    static func wakeupsWhileIdle(extraConfig: String, connectedTo broker: MosquittoTestBroker? = nil) async throws -> (total: Int, woken: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-idle-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("terminal.yaml")
        try """
        terminal_id: idle-door
        state_dir: \(directory.path)
        metrics:
          listen: 127.0.0.1:0
        entry:
          result_s: 1
          timeout_s: 2
        verifier:
          kind: local
          users_file: \(CLI.root.appendingPathComponent("config/users.example").path)
        \(extraConfig)
        """.write(to: config, atomically: true, encoding: .utf8)
        let simulator = try DaemonServicesTests.LiveSimulator(
            arguments: ["simulate", "--config", config.path, "--display", "plain", "--log-level", "notice"])
        let port = try await simulator.metricsPort()
        #expect(port != 0)
        if let broker {
            // Connected: the door's availability is retained on the broker.
            let online = try await broker.retained("kioskpad/idle-door/status", expecting: 1)
            #expect(online.map(\.payload) == ["online"])
        }
        simulator.type("12349876")  // a grant and a denial: every timer and the verifier have run
        _ = try await DaemonServicesTests.fetch("http://127.0.0.1:\(port)/metrics")
        // Both results shown and gone (however long the hashing took on a busy machine), then
        // 6 s: threads that end on their own after start (libdispatch's, ~5 s) have ended, and
        // every entry timeout armed while typing (2 s here) has fallen due. A cancelled sleep
        // still wakes its executor at its deadline, so a 10 s timeout would land in the window.
        #expect(try await simulator.output(shows: ["Access granted", "Access denied", "Enter PIN"]))
        try await Task.sleep(for: .seconds(6))
        let pid = simulator.process.processIdentifier
        let before = Self.threadSwitches(pid: pid)
        try await Task.sleep(for: .seconds(10))
        let after = Self.threadSwitches(pid: pid)
        _ = try await simulator.finish()
        // A thread that started counts from 0; one that ended counts once (its exit).
        let woken = after.compactMap { tid, now -> (String, Int)? in
            let delta = now.switches - (before[tid]?.switches ?? 0)
            return delta > 0 ? (now.name, delta) : nil
        }
        let ended = before.filter { after[$0.key] == nil }.map { ($0.value.name, 1) }
        #expect(!before.isEmpty)
        return ((woken + ended).reduce(0) { $0 + $1.1 }, (woken + ended).map { "\($0.0):\($0.1)" }.joined(separator: ", "))
    }

    /// Voluntary plus involuntary context switches of each thread of `pid`, by thread id.
    static func threadSwitches(pid: Int32) -> [String: (name: String, switches: Int)] {
        let tasks = "/proc/\(pid)/task"
        var result: [String: (name: String, switches: Int)] = [:]
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let status = try? String(contentsOfFile: "\(tasks)/\(tid)/status", encoding: .utf8) else { continue }
            var name = tid
            var switches = 0
            for line in status.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                if parts[0] == "Name" { name = parts[1] }
                if parts[0].hasSuffix("voluntary_ctxt_switches") { switches += Int(parts[1]) ?? 0 }
            }
            result[tid] = (name, switches)
        }
        return result
    }
}
