import DoorController
import DoorOfflineReplica
import DoorServices
import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import Synchronization
import Testing

/// The door's remote-command events, as `RESULT SECONDS`.
final class CommandEvents: TerminalEventSink {
    private let seen = Mutex<[String]>([])
    var events: [String] { seen.withLock { $0 } }

    func handle(_ event: TerminalEvent) async {
        if case .remoteCommand(_, _, let seconds, let result, let reason) = event {
            seen.withLock { $0.append([result, seconds.map(String.init), reason].compactMap { $0 }.joined(separator: " ")) }
        }
    }
}

/// Remote unlock from the management API to a door's relay: `verifier serve` in its own
/// process (with its console and API), and a door's push channel, remote-command runner and
/// relay (on a recording output) as `kioskpad run` wires them, over loopback HTTP with the
/// door's own secret. Each `POST /api/v1/doors/front-door/unlock` turns the relay on within a
/// second, for the seconds asked; a lockdown set through the API refuses the next one.
@Suite("Remote unlock end to end", .serialized, .heavy)
struct RemoteUnlockEndToEndTests {
    @Test func anUnlockFromTheAPIReachesTheRelayAndLockdownRefusesIt() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  console:\n    enabled: true\n    listen: 127.0.0.1:0\n")
        let config = directory.appendingPathComponent("verifier.yaml").path
        let cli: @Sendable ([String]) async throws -> CLI.Result = { arguments in try await CLI.run(arguments + ["--config", config]) }
        let added = try await cli(["verifier", "terminal", "add", "front-door"])
        #expect(added.status == 0, "\(added.stderr)")
        let doorSecret = try WebhookSecret(parsing: added.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let token = try await cli(["verifier", "token", "create", "desk", "--scope", "doors"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let publicKey = try ReplicaPublicKey(parsing: try await cli(["verifier", "public-key"]).stdout)
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let apiPort = try #require(server.consoleURL.flatMap { URL(string: $0)?.port })

        // The door, as `kioskpad run` assembles it with verifier.offline (push on).
        let state = directory.appendingPathComponent("door-state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        var logger = Logger(label: "door")
        logger.logLevel = .warning
        let trust = ReplicaTrust(current: publicKey)
        let keeper = ReplicaKeeper(
            settings: .init(terminalID: "front-door", trust: trust, path: state + "/replica.json", maxAge: .seconds(86_400), wallClockTrusted: { true }))
        let client = try ReplicaSyncClient(
            urls: ["http://127.0.0.1:\(server.port)/v1/credentials"], terminalID: "front-door", secret: doorSecret,
            settings: .init(url: "http://127.0.0.1:\(server.port)/verify", secret: doorSecret))
        let output = RecordingOutput()
        let relay = try DoorRelay(output: output, defaultUnlock: .seconds(3), maxUnlock: .seconds(10), logger: logger)
        let bus = TerminalEventBus()
        let recorder = CommandEvents()
        bus.start(sinks: [recorder])
        let modes = DoorModeController(relay: relay, bus: bus, logger: logger)
        let runner = RemoteCommandRunner(terminalID: "front-door", trust: trust, directory: state, relay: relay, modes: modes, bus: bus, logger: logger)
        let loop = ReplicaSyncLoop(keeper: keeper, client: client, interval: .seconds(300), push: true, logger: logger)
        let watching = Task { await loop.watch(commands: runner) }
        do {
            _ = try await loop.syncOnce()
            try await Task.sleep(for: .milliseconds(500))
            try await unlocks(apiPort: apiPort, token: token, output: output, recorder: recorder, cli: cli)
            try await retirement(keeper: keeper, state: state, recorder: recorder, cli: cli)
        } catch {
            watching.cancel()
            await client.shutdown()
            throw error
        }
        watching.cancel()
        await client.shutdown()
    }

    func unlocks(
        apiPort: Int, token: String, output: RecordingOutput, recorder: CommandEvents, cli: @Sendable ([String]) async throws -> CLI.Result
    ) async throws {

        func send(_ path: String, _ body: String) async throws -> LoopbackHTTP.Answer {
            try await LoopbackHTTP.post(
                port: apiPort, path: "/api/v1/doors/front-door/" + path, body: Array(body.utf8), headers: [("authorization", "Bearer \(token)")])
        }
        var latencies: [Duration] = []
        for round in 1...8 {
            let ons = output.changes.filter(\.on).count
            let start = ContinuousClock.now
            let answer = try await send("unlock", "{\"seconds\": 1, \"reason\": \"courier \(round)\"}")
            #expect(answer.status == 202 && answer.body.contains("\"action\":\"unlock\""), "\(answer.status) \(answer.body)")
            var reached: Duration?
            while ContinuousClock.now - start < .seconds(5) {
                if output.changes.filter(\.on).count > ons {
                    reached = ContinuousClock.now - start
                    break
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            let on = try #require(reached, "unlock \(round) never reached the relay")
            latencies.append(on)
            // Held for the second asked, then off.
            #expect(await eventually { !output.isOn })
        }
        #expect(recorder.events.count == 8 && recorder.events.allSatisfy { $0 == "unlocked 1" }, "\(recorder.events)")
        let sorted = latencies.sorted()
        print("remote unlock: API to relay on over \(sorted.count): p50 \(sorted[sorted.count / 2]), max \(sorted.last!)")
        #expect(sorted.last! < .seconds(2), "each unlock reached the relay within the channel's round trip: \(sorted)")

        // The door's next request said it took each one: all delivered.
        let listed = try await cli(["verifier", "terminal", "commands", "front-door"])
        #expect(listed.stdout.split(separator: "\n").count == 8 && !listed.stdout.contains("not taken"), "\(listed.stdout)")

        // Lockdown through the API: the next unlock is refused at the site, and nothing moves.
        let locked = try await LoopbackHTTP.put(
            port: apiPort, path: "/api/v1/modes/doors/front-door", body: Array("{\"mode\":\"lockdown\"}".utf8),
            headers: [("authorization", "Bearer \(token)")])
        #expect(locked.status == 200, "\(locked.body)")
        let refused = try await send("unlock", "{\"reason\": \"courier 9\"}")
        #expect(refused.status == 409 && refused.body.contains("lockdown"), "\(refused.status) \(refused.body)")
        let bad = try await send("unlock", "{\"seconds\": 0, \"reason\": \"x\"}")
        #expect(bad.status == 400 && bad.body.contains("seconds"), "\(bad.body)")
        let unknown = try await LoopbackHTTP.post(
            port: apiPort, path: "/api/v1/doors/typo-door/unlock", body: Array("{\"reason\":\"x\"}".utf8), headers: [("authorization", "Bearer \(token)")])
        #expect(unknown.status == 404, "\(unknown.body)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(output.changes.filter(\.on).count == 8)
    }

    /// `verifier terminal retire` reaches the waiting door on its push channel: the site's
    /// signed word, for the door's nonce, removes its replica, so it decides offline no more.
    func retirement(keeper: ReplicaKeeper, state: String, recorder: CommandEvents, cli: @Sendable ([String]) async throws -> CLI.Result) async throws {
        #expect(keeper.held != nil && keeper.problem() == nil, "the door decides offline before it is retired")
        let start = ContinuousClock.now
        let retired = try await cli(["verifier", "terminal", "retire", "front-door"])
        #expect(retired.status == 0, "\(retired.stderr)")
        let committed = ContinuousClock.now - start
        var reached: Duration?
        while ContinuousClock.now - start < .seconds(10) {
            if keeper.held == nil {
                reached = ContinuousClock.now - start
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let took = try #require(reached, "the retired door kept its replica: \(keeper.problem() ?? "")")
        print("retirement: command started to replica removed in \(took) (the command itself exited after \(committed))")
        #expect(keeper.problem()?.contains("retired") == true, "\(keeper.problem() ?? "")")
        #expect(!FileManager.default.fileExists(atPath: state + "/replica.json"))
        #expect(recorder.events.last == "retired", "\(recorder.events)")
    }
}
