import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import SiteHTTP
import Testing
import VerifierTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The door routes behind their middleware (rate gate, body reader, admission), over real
/// sockets on loopback: what each step answers, and in which order.
@Suite("Reference server: the door controller and its middleware", .serialized, .heavy)
struct DoorControllerTests {
    let secret = WebhookSecret.generate()
    let attemptID = "9a1f0f0e-3c51-4c2b-9d7e-2d1c7e2b8a11"

    func reference(rejectionLimit: Int = 20) async throws -> ReferenceVerifier {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        return try await ReferenceVerifier.overNewStore(
            settings: .init(secret: secret, maxBodyBytes: 1_024, rejectionLimit: rejectionLimit, rejectionInterval: 60),
            users: try UsersFile(parsing: "carol:\(hash)\n", source: "users"))
    }

    /// One HTTP/1.1 POST on its own connection (closed after the answer): the answer's text.
    func post(_ path: String, body: [UInt8], headers: [(String, String)] = [], port: Int) async throws -> String {
        let fd = LoopbackSocket.connect(from: "127.0.0.1", to: port)
        defer { close(fd) }
        #expect(LoopbackSocket.awaitWritable(fd, milliseconds: 6_000), "connected")
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + body
        #expect(bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count)
        let (received, _) = try await onOwnThread { LoopbackSocket.readUntilClosed(fd, milliseconds: 6_000) }
        return String(decoding: received, as: UTF8.self)
    }

    func attempt(terminal: String = "door-1", pin: String = "4826") -> [UInt8] {
        Array(#"{"terminal_id":"\#(terminal)","kind":"pin","value":"\#(pin)","attempt_id":"\#(attemptID)","entered_at":"2026-11-20T10:00:00Z"}"#.utf8)
    }

    func signed(_ body: [UInt8], terminal: String?) -> [(String, String)] {
        WebhookSignature.headers(id: UUID().uuidString, body: body, secret: secret).map { ($0.name, $0.value) }
            + (terminal.map { [(ClaimedTerminal.header, $0)] } ?? [])
    }

    /// A door of this release names itself in a header; an older one only in its body, which
    /// the gate then reads (once) to choose the key: both are decided. A header that names
    /// another door than the body is refused, naming both.
    @Test func aDoorNamedInTheHeaderOrOnlyInItsBodyIsDecided() async throws {
        try await withReferenceServer(try await reference()) { port in
            let body = attempt()
            let named = try await post("/verify", body: body, headers: signed(body, terminal: "door-1"), port: port)
            #expect(named.hasPrefix("HTTP/1.1 200") && named.contains(#""decision":"granted""#), "\(named)")
            let older = try await post("/verify", body: body, headers: signed(body, terminal: nil), port: port)
            #expect(older.hasPrefix("HTTP/1.1 200") && older.contains(#""decision":"granted""#), "\(older)")
            let other = try await post("/verify", body: body, headers: signed(body, terminal: "door-2"), port: port)
            #expect(other.hasPrefix("HTTP/1.1 400") && other.contains("the body names terminal_id door-1, the request claimed door-2"), "\(other)")
        }
    }

    /// A body over the route's cap is refused by the body reader (400, naming the cap) and
    /// counted against its address like any refusal; an address over its limit is answered
    /// 429 with Retry-After before its body is read, on every door route.
    /// The door's wait (issue 78, point 9): a value that is not one is refused naming the
    /// header; a good one, and none, are decided.
    @Test func aWaitThatIsNotOneIsRefusedNamingTheHeader() async throws {
        try await withReferenceServer(try await reference()) { port in
            for bad in ["0", "0100", "2s", "1000000", "-1"] {
                let body = attempt(pin: "1111")
                let refused = try await post("/verify", body: body, headers: signed(body, terminal: "door-1") + [(AnswerWait.header, bad)], port: port)
                #expect(refused.hasPrefix("HTTP/1.1 400") && refused.contains("kioskpad-wait-ms must be the milliseconds"), "\(bad): \(refused)")
            }
            let body = attempt()
            let waited = try await post("/verify", body: body, headers: signed(body, terminal: "door-1") + [(AnswerWait.header, "3000")], port: port)
            #expect(waited.hasPrefix("HTTP/1.1 200") && waited.contains(#""decision":"granted""#), "\(waited)")
        }
    }

    @Test func oversizedBodiesCountAgainstTheAddressAndTheRateGateAnswersFirst() async throws {
        try await withReferenceServer(try await reference(rejectionLimit: 3)) { port in
            let large = Array(repeating: UInt8(ascii: " "), count: 2_000)
            for _ in 0..<3 {
                let answer = try await post("/verify", body: large, port: port)
                #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("body missing or larger than 1024 bytes"), "\(answer)")
            }
            let body = attempt()
            for path in ["/verify", "/v1/enrol"] {
                let answer = try await post(path, body: body, headers: signed(body, terminal: "door-1"), port: port).lowercased()
                #expect(answer.hasPrefix("http/1.1 429") && answer.contains("retry-after: 60"), "\(path): \(answer)")
            }
        }
    }

    /// What the one strict pass refuses is answered 400 naming it: a repeated key, a field of
    /// the wrong type, an unknown field.
    @Test(arguments: [
        (#"{"terminal_id":"door-1","terminal_id":"door-2"}"#, "the key 'terminal_id' appears twice in one object"),
        (#"{"terminal_id":"door-1","kind":"pin","value":4826,"attempt_id":"a","entered_at":"2026-11-20T10:00:00Z"}"#, "value must be a string"),
        (
            #"{"terminal_id":"door-1","kind":"pin","value":"4826","attempt_id":"9a1f0f0e-3c51-4c2b-9d7e-2d1c7e2b8a11","entered_at":"2026-11-20T10:00:00Z","door":"x"}"#,
            "unknown property door"
        ),
    ])
    func aBodyTheStrictPassRefusesIsAnswered400NamingWhy(text: String, reason: String) async throws {
        try await withReferenceServer(try await reference()) { port in
            let body = Array(text.utf8)
            let answer = try await post("/verify", body: body, headers: signed(body, terminal: "door-1"), port: port)
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains(reason), "\(answer)")
        }
    }
}
