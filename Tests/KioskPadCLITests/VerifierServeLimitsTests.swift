import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Testing
import VerifierTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// 1,100 idle connections against `kioskpad verifier serve`: before the server had limits,
/// they made real requests time out and none was closed in 60 s. A child process holds the
/// flood's sockets: in the test process, 1,100 more descriptors made any `Process.run()` of
/// a test running beside it crash now and then (swift-corelibs-foundation reads past the
/// end of a `/proc/self/fd` entry when that directory is long: PR #5472, not in Swift 6.3.1).
@Suite("verifier serve under an idle-connection flood", .serialized, .heavy)
struct VerifierServeLimitsTests {
    @Test func theFloodIsBoundedInCountAndTimeAndATerminalIsStillServed() async throws {
        let directory = try await VerifierProcess.prepare(pin: "4711", extraSettings: "  max_connections_per_source: 32\n  request_timeout_s: 2\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let flood = try await IdleConnectionFlood(count: 1_100, from: "127.0.0.2", to: server.port)
        defer { flood.end() }
        try await Task.sleep(for: .milliseconds(500))
        let verifier = try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(server.port)/verify", deadline: .seconds(3), secret: try server.secret))
        let dana = { VerificationAttempt(terminalID: "door-3", kind: .pin, value: SecretDigits(ascii: "4711")!) }
        #expect(
            await verifier.verify(dana()) == .granted(message: nil, unlockSeconds: nil, user: "dana"),
            "a terminal on another address is served during the flood")
        try await Task.sleep(for: .seconds(3))
        let connections = try #require(try await server.health()["connections"] as? [String: Int])
        #expect(connections["peak"]! <= 32 + 2, "at most 32 from the flooding address at once: \(connections)")
        #expect(connections["timed_out"]! >= 32, "idle connections are closed after request_timeout_s: \(connections)")
        #expect(connections["refused"]! >= 100, "over the per-address limit: closed at accept: \(connections)")
        #expect(await verifier.verify(dana()) == .granted(message: nil, unlockSeconds: nil, user: "dana"))
        await verifier.shutdown()
        // The flood ends: what the backlog still held is accepted and closed; within the
        // request timeout nothing but the health check's own connection is left.
        await flood.ended()
        var after: [String: Int] = [:]
        for _ in 0..<12 {
            try await Task.sleep(for: .milliseconds(250))
            after = try #require(try await server.health()["connections"] as? [String: Int])
            if after["open"]! <= 1 { break }
        }
        #expect(after["open"]! <= 1, "only the health check's own connection is left 3 s after the flood: \(after)")
        print("connection flood (1,100 idle from one address): \(connections)")
    }

    /// The console listener has limits of its own (128 open, 32 per address, 10 s per
    /// request), fewer than the doors': 1,100 idle connections to it from one address
    /// neither delay a door's `/verify` nor leave the server holding more than a few hundred
    /// descriptors (before, they filled all 1,024 of the service's soft limit).
    @Test func aConsoleFloodLeavesTheDoorsTheirDescriptors() async throws {
        let directory = try await VerifierProcess.prepare(pin: "4711", extraSettings: "  console:\n    enabled: true\n    listen: 127.0.0.1:0\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let consolePort = try #require(server.consoleURL.flatMap { URL(string: $0)?.port })
        let flood = try await IdleConnectionFlood(count: 1_100, from: "127.0.0.2", to: consolePort)
        defer { flood.end() }
        try await Task.sleep(for: .milliseconds(500))
        let verifier = try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(server.port)/verify", deadline: .seconds(3), secret: try server.secret))
        let dana = VerificationAttempt(terminalID: "door-3", kind: .pin, value: SecretDigits(ascii: "4711")!)
        #expect(await verifier.verify(dana) == .granted(message: nil, unlockSeconds: nil, user: "dana"), "a door is served during a console flood")
        await verifier.shutdown()
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.processIdentifier)/fd").count) ?? -1
        #expect((0..<300).contains(descriptors), "the server's open descriptors during the flood: \(descriptors)")
        // The console still answers another address: the flood is held to its own 32.
        let page = try await LoopbackHTTP.get(port: consolePort, path: "/console/login")
        #expect(page.status == 200)
        print("console flood (1,100 idle from one address): the server held \(descriptors) descriptors")
    }

    /// Refused `/v1/events` and `/v1/credentials` requests share `/verify`'s per-address tally:
    /// over `rejected_per_source` in the interval the address gets 429 with Retry-After on
    /// every door endpoint; each answer is counted in `/metrics`; the audit gets the first
    /// refusal on its own, not one record per request.
    @Test func refusedEventAndCredentialFloodsAreThrottledCountedAndNotAuditedOneByOne() async throws {
        let directory = try await VerifierProcess.prepare(pin: "4711", extraSettings: "  rejected_per_source: 5\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        var statuses: [Int] = []
        for index in 0..<30 {
            let path = index.isMultiple(of: 2) ? "/v1/events" : "/v1/credentials"
            let body = index.isMultiple(of: 2) ? "[]" : #"{"terminal_id":"door-1","have_version":0}"#
            statuses.append(try await LoopbackHTTP.post(port: server.port, path: path, body: Array(body.utf8), headers: []).status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.dropFirst(5).allSatisfy { $0 == 429 }, "\(statuses)")
        // The same address is throttled on /verify too, and a door elsewhere is not.
        let unsigned =
            #"{"terminal_id":"door-1","kind":"pin","value":"4711","attempt_id":"8d3c2b1a-0f9e-4d7c-b6a5-4e3f2d1c0b9a","entered_at":"2026-11-20T10:00:00Z"}"#
        #expect(try await LoopbackHTTP.post(port: server.port, path: "/verify", body: Array(unsigned.utf8), headers: []).status == 429)
        let metrics = try await LoopbackHTTP.get(port: server.port, path: "/metrics").body
        #expect(metrics.contains(#"kioskpad_verifier_door_requests_total{endpoint="events",result="throttled"} 12"#), "\(metrics)")
        #expect(metrics.contains(#"kioskpad_verifier_door_requests_total{endpoint="credentials",result="unauthenticated"} 2"#), "\(metrics)")
        let audit = try await SQLiteAuditReader.records(path: directory.appendingPathComponent("state/verifier.sqlite3").path)
        let rejected = audit.filter { $0.contains(#""decision":"rejected""#) }
        #expect(rejected.count == 1 && rejected[0].contains("events:"), "the first refusal alone: \(rejected)")
    }

    /// A door over its event quota that names itself in `kioskpad-terminal` is answered 429
    /// before its body is read: a body that is not even JSON gets the same 429, where without
    /// the header it is parsed and refused. The answer is held for the pace of a door over
    /// its quota.
    @Test func aDoorOverItsEventQuotaIsAnsweredBeforeItsBodyIsRead() async throws {
        // A day's quota (no minute ends between two requests), at its least: 100,000 bytes,
        // less than one batch of 50 records of about 2.9 kB.
        let directory = try await VerifierProcess.prepare(pin: "4711", extraSettings: "  events:\n    max_bytes_per_day: 100000\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let secret = try server.secret
        let time = ISO8601DateFormatter().string(from: Date())
        let text = String(repeating: "x", count: 900)
        let records = (1...50).map {
            #"{"type":"kioskpad.fault","timestamp":"\#(time)","data":{"seq":\#($0),"id":"r\#($0)","time":"\#(time)","type":"fault","terminal_id":"door-1","a":"\#(text)","b":"\#(text)","c":"\#(text)"}}"#
        }
        func signed(_ body: [UInt8], terminal: String?) -> [(name: String, value: String)] {
            let headers = WebhookSignature.headers(id: UUID().uuidString, body: body, secret: secret).map { (name: $0.name, value: $0.value) }
            return headers + (terminal.map { [(name: "kioskpad-terminal", value: $0)] } ?? [])
        }
        let full = Array(("[" + records.joined(separator: ",") + "]").utf8)
        let first = try await LoopbackHTTP.post(port: server.port, path: "/v1/events", body: full, headers: signed(full, terminal: "door-1"))
        #expect(first.status == 429 && first.body.contains("door door-1 is over its event quota (bytes_per_day)"), "decoded, then over: \(first)")
        let garbage = Array("not a batch".utf8)
        let asked = ContinuousClock.now
        let early = try await LoopbackHTTP.post(port: server.port, path: "/v1/events", body: garbage, headers: signed(garbage, terminal: "door-1"))
        let held = ContinuousClock.now - asked
        #expect(early.status == 429 && early.body.contains("door door-1 is over its event quota (bytes_per_day)"), "\(early)")
        // Paced: a door ignoring Retry-After is answered once a second per connection.
        #expect(held >= .milliseconds(950), "answered after \(held) (the pace is 1 s: DoorEventIntake.overQuotaPace)")
        #expect(
            try await LoopbackHTTP.post(port: server.port, path: "/v1/events", body: garbage, headers: [(name: "kioskpad-terminal", value: "door-1")]).status
                == 429, "unsigned too: nothing read")
        #expect(
            try await LoopbackHTTP.post(port: server.port, path: "/v1/events", body: garbage, headers: signed(garbage, terminal: nil)).status == 400,
            "an older door's body is parsed")
        #expect(
            try await LoopbackHTTP.post(port: server.port, path: "/v1/events", body: garbage, headers: signed(garbage, terminal: "door-2")).status == 400,
            "another door is not over")
        let metrics = try await LoopbackHTTP.get(port: server.port, path: "/metrics").body
        #expect(metrics.contains(#"kioskpad_verifier_door_requests_total{endpoint="events",result="over_quota"} 3"#), "\(metrics)")
    }
}

/// `count` idle TCP connections from `source` to a loopback port, opened and held by a
/// Python child process until ``end()`` (it closes them all and exits).
final class IdleConnectionFlood {
    private let process = Process()
    private let input = Pipe()

    init(count: Int, from source: String, to port: Int) async throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import resource, socket, sys
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
            held = []
            for _ in range(int(sys.argv[1])):
                s = socket.socket(); s.setblocking(False); s.bind((sys.argv[2], 0))
                s.connect_ex(("127.0.0.1", int(sys.argv[3]))); held.append(s)
            print(len(held), flush=True)
            sys.stdin.read()
            """, String(count), source, String(port),
        ]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let opened = try await onOwnThread { String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
        guard Int(opened.trimmingCharacters(in: .whitespacesAndNewlines)) == count else {
            end()
            throw POSIXError(.EMFILE)
        }
    }

    /// Closes every connection (the child exits) and waits for it.
    /// For `defer`: closes the flood's stdin (it closes every connection and exits); nobody waits.
    func end() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
    }

    /// Ends the flood and returns once its process is gone (the wait on a thread of its own).
    func ended() async {
        end()
        let process = self.process
        _ = try? await onOwnThread { process.waitUntilExit() }
    }
}
