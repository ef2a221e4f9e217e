import Foundation
import KeypadTestSupport
import TestPeers
import Testing

/// `kioskpad simulate` with an `mqtt:` section against a real mosquitto over TLS with a
/// password: what Home Assistant sees of a typed grant, a remote unlock with a right and a
/// wrong code, and the terminal being killed.
@Suite("Home Assistant end to end", .serialized, .heavy)
struct HomeAssistantEndToEndTests {
    @Test("a typed grant, a remote unlock and a wrong remote code reach Home Assistant without digits; a killed terminal leaves offline")
    func simulateReportsToHomeAssistant() async throws {
        let broker = try await MosquittoTestBroker.started()
        let state = broker.directory.appendingPathComponent("terminal-state")
        let config = broker.directory.appendingPathComponent("terminal.yaml")
        try """
        terminal_id: e2e-door
        state_dir: \(state.path)
        verifier: {kind: demo}
        mqtt:
          url: mqtts://127.0.0.1:\(broker.tlsPort)
          ca_file: \(broker.caFile)
          username: \(broker.username)
          password_file: \(broker.passwordFile)
          remote_unlock: true
        """.write(to: config, atomically: true, encoding: .utf8)
        let watcher = try await broker.watch("kioskpad/e2e-door/#")
        let terminal = try Terminal(config: config.path)
        defer { terminal.kill() }
        #expect(await watcher.wait { $0.contains { $0.topic == "kioskpad/e2e-door/status" && $0.payload == "online" } }, "\(terminal.stderr)")

        #expect(try mappedLibraries(terminal).contains { $0.hasPrefix("libmosquitto.so") })

        terminal.type("1234")
        #expect(await watcher.wait { events($0).count == 1 })
        try await broker.publish("kioskpad/e2e-door/lock/set", #"{"action":"OPEN","code":"1234"}"#)
        #expect(await watcher.wait { events($0).count == 2 })
        try await broker.publish("kioskpad/e2e-door/lock/set", #"{"action":"OPEN","code":"4821"}"#)
        #expect(await watcher.wait { events($0).count == 3 }, "\(terminal.stderr)")
        #expect(
            events(watcher.messages) == [
                #"{"event_type":"granted","user":"demo"}"#, #"{"event_type":"remote_unlock","user":"demo"}"#, #"{"event_type":"denied"}"#,
            ])
        #expect(watcher.messages(on: "kioskpad/e2e-door/last_user").last?.payload == "demo")
        #expect(terminal.stdout.components(separatedBy: "Access granted").count - 1 >= 2)

        await terminal.killed()
        #expect(await watcher.wait { $0.last { $0.topic == "kioskpad/e2e-door/status" }?.payload == "offline" })
        let journal = try String(contentsOf: state.appendingPathComponent("journal.jsonl"), encoding: .utf8)
        let remote = journal.split(separator: "\n").filter { $0.contains(#""remote":true"#) }
        #expect(remote.count == 2 && remote[0].contains(#""decision":"granted""#) && remote[1].contains(#""decision":"denied""#), "\(journal)")
        // Only the inbound commands carry a code; nothing the terminal wrote or published does.
        let published = watcher.messages.filter { $0.topic != "kioskpad/e2e-door/lock/set" }.map(\.payload)
        for text in published + [journal, terminal.stderr, terminal.stdout.replacingOccurrences(of: "demo PIN: 1234", with: "")] {
            // Numbers that are not digits typed: attempt ids (hex) and latencies (1234 ms on a loaded machine).
            let scrubbed = text.replacing(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, with: "<uuid>")
                .replacing(/latency_ms["=:]+[0-9]+/, with: "latency_ms=<n>")
            #expect(!scrubbed.contains("1234") && !scrubbed.contains("4821"), "\(scrubbed)")
        }
    }

    @Test("a terminal without mqtt: never loads libmosquitto, nor the OpenSSL it links")
    func noMQTTNoLibrary() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-nomqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("terminal.yaml")
        try "terminal_id: plain-door\nstate_dir: \(directory.path)/state\nverifier: {kind: demo}\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let terminal = try Terminal(config: config.path)
        defer { terminal.kill() }
        let deadline = ContinuousClock.now + .seconds(20)
        while !terminal.stdout.contains("demo PIN"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        terminal.type("1234")
        while !terminal.stdout.contains("Access granted"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(terminal.stdout.contains("Access granted"), "\(terminal.stderr)")
        let libraries = try mappedLibraries(terminal)
        #expect(libraries.contains("libgpiod.so.2") || libraries.contains("libswiftCore.so"), "\(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libmosquitto") || $0.hasPrefix("libssl") || $0.hasPrefix("libcrypto") }, "\(libraries)")
    }

    /// The file names of the shared objects a running terminal has mapped (/proc/PID/maps).
    private func mappedLibraries(_ terminal: Terminal) throws -> Set<String> {
        // Read to the end by read(2): /proc files report size 0, which Foundation trusts.
        let descriptor = open("/proc/\(terminal.pid)/maps", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoPermission) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        SpawnedChild.read(descriptor) { bytes.append(contentsOf: $0) }
        let maps = String(decoding: bytes, as: UTF8.self)
        return Set(
            maps.split(separator: "\n").compactMap { line in
                line.split(separator: " ", omittingEmptySubsequences: true).last.flatMap { $0.hasPrefix("/") ? String($0.split(separator: "/").last!) : nil }
            })
    }

    private func events(_ messages: [MosquittoTestBroker.Message]) -> [String] {
        messages.filter { $0.topic == "kioskpad/e2e-door/event" }.map(\.payload)
    }

    /// `kioskpad simulate --display plain` with stdin kept open.
    final class Terminal: @unchecked Sendable {
        // @unchecked: the buffers are locked; `child` is only started, written to and ended.
        private let child: SpawnedChild
        private let out = Buffer()
        private let err = Buffer()

        /// Filled by a reader thread, which holds it and the child, never the terminal.
        final class Buffer: @unchecked Sendable {
            // @unchecked: `data` is guarded by `lock`.
            let lock = NSLock()
            var data = Data()
            var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
        }

        init(config: String) throws {
            child = try SpawnedChild(
                [CLI.binary.path, "simulate", "--config", config, "--display", "plain"], stdin: .pipe, stdout: .pipe, stderr: .pipe)
            for (descriptor, buffer) in [(child.output, out), (child.errors, err)] {
                guard let descriptor else { continue }
                let child = self.child
                Thread {
                    SpawnedChild.read(descriptor) { chunk in buffer.lock.withLock { buffer.data.append(contentsOf: chunk) } }
                    _ = child  // the descriptors stay open until this reader is done
                }.start()
            }
        }

        func type(_ keys: String) { child.write(keys) }

        var pid: pid_t { child.pid }

        var stdout: String { out.text }
        var stderr: String { err.text }

        /// For `defer`: SIGKILL now, reaped on a thread of its own; nobody waits.
        func kill() { child.terminateInBackground() }

        /// SIGKILL, and back once it is reaped (the wait on a thread of its own).
        func killed() async {
            let child = self.child
            _ = try? await onOwnThread { child.terminate(SIGKILL) }
        }
    }
}
