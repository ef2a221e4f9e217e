import Foundation
import KeypadTestSupport
import Testing

/// `kioskpad simulate` with an `mqtt:` section against a real mosquitto over TLS with a
/// password: what Home Assistant sees of a typed grant, a remote unlock with a right and a
/// wrong code, and the terminal being killed.
@Suite("Home Assistant end to end", .serialized)
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

        terminal.type("1234")
        #expect(await watcher.wait { events($0).count == 1 })
        try await broker.publish("kioskpad/e2e-door/lock/set", #"{"action":"OPEN","code":"1234"}"#)
        #expect(await watcher.wait { events($0).count == 2 })
        try await broker.publish("kioskpad/e2e-door/lock/set", #"{"action":"OPEN","code":"4821"}"#)
        #expect(await watcher.wait { events($0).count == 3 }, "\(terminal.stderr)")
        #expect(events(watcher.messages) == [
            #"{"event_type":"granted","user":"demo"}"#, #"{"event_type":"remote_unlock","user":"demo"}"#, #"{"event_type":"denied"}"#,
        ])
        #expect(watcher.messages(on: "kioskpad/e2e-door/last_user").last?.payload == "demo")
        #expect(terminal.stdout.components(separatedBy: "Access granted").count - 1 >= 2)

        terminal.kill()
        #expect(await watcher.wait { $0.last { $0.topic == "kioskpad/e2e-door/status" }?.payload == "offline" })
        let journal = try String(contentsOf: state.appendingPathComponent("journal.jsonl"), encoding: .utf8)
        let remote = journal.split(separator: "\n").filter { $0.contains(#""remote":true"#) }
        #expect(remote.count == 2 && remote[0].contains(#""decision":"granted""#) && remote[1].contains(#""decision":"denied""#), "\(journal)")
        // Only the inbound commands carry a code; nothing the terminal wrote or published does.
        let published = watcher.messages.filter { $0.topic != "kioskpad/e2e-door/lock/set" }.map(\.payload)
        for text in published + [journal, terminal.stderr, terminal.stdout.replacingOccurrences(of: "demo PIN: 1234", with: "")] {
            #expect(!text.contains("1234") && !text.contains("4821"))
        }
    }

    private func events(_ messages: [MosquittoTestBroker.Message]) -> [String] {
        messages.filter { $0.topic == "kioskpad/e2e-door/event" }.map(\.payload)
    }

    /// `kioskpad simulate --display plain` with stdin kept open.
    final class Terminal: @unchecked Sendable {
        // @unchecked: the buffers are guarded by `lock`.
        private let process = Process()
        private let input = Pipe()
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()

        init(config: String) throws {
            process.executableURL = CLI.binary
            process.arguments = ["simulate", "--config", config, "--display", "plain"]
            let output = Pipe(), errors = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            collect(output.fileHandleForReading) { [unowned self] in out.append($0) }
            collect(errors.fileHandleForReading) { [unowned self] in err.append($0) }
        }

        private func collect(_ handle: FileHandle, into append: @escaping @Sendable (Data) -> Void) {
            Thread { [lock] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    append(chunk)
                    lock.unlock()
                }
            }.start()
        }

        func type(_ keys: String) { input.fileHandleForWriting.write(Data(keys.utf8)) }

        var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
        var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

        func kill() {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            for _ in 0..<200 where process.isRunning { usleep(10_000) }
        }
    }
}
