import Foundation
import KeypadCore
import KeypadVerifier
import ReferenceVerifierCore
import Testing

/// `kioskpad verifier serve` reads its users file again when it changes: users added or
/// removed with `kioskpad verifier user` count from the next attempt, without a restart.
@Suite("Reference verifier: users file read again when it changes")
struct UsersFileReloadTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-reload-\(UUID())")
    var usersPath: String { directory.appendingPathComponent("users").path }

    func hash(_ pin: String) throws -> PINHash {
        try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1_000)
    }

    func verifier() throws -> ReferenceVerifier {
        ReferenceVerifier(
            settings: ReferenceVerifier.Settings(secret: nil, unlockSeconds: 4),
            usersFile: try UsersFileWatcher(path: usersPath),
            codes: OneTimeCodeStore(path: directory.appendingPathComponent("codes").path), audit: nil)
    }

    func attempt(_ reference: ReferenceVerifier, _ kind: String, _ value: String) async -> String {
        let body = Array("{\"terminal_id\":\"door-1\",\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"attempt_id\":\"\(UUID())\",\"entered_at\":\"2027-01-15T08:00:00Z\"}".utf8)
        let reply = await reference.handle(.init(contentType: "application/json", webhookID: nil, webhookTimestamp: nil, webhookSignature: nil, body: body))
        return reply.answerText ?? reply.outcomeName
    }

    @Test func usersAddedAndRemovedCountFromTheNextAttempt() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let editor = UsersFileEditor(path: usersPath)
        try editor.add(name: "alice", hash: hash("2580"))
        let reference = try verifier()
        #expect(await attempt(reference, "pin", "2580") == "granted")
        #expect(await attempt(reference, "pin", "1397") == "denied")
        try editor.add(name: "bob", hash: hash("1397"))
        #expect(await attempt(reference, "pin", "1397") == "granted")
        try editor.setPIN(name: "alice", hash: hash("4711"))
        #expect(await attempt(reference, "pin", "2580") == "denied")
        #expect(await attempt(reference, "pin", "4711") == "granted")
        try editor.remove(name: "bob")
        #expect(await attempt(reference, "pin", "1397") == "denied")
    }

    @Test func aCodeOfARemovedUserOpensNothing() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let editor = UsersFileEditor(path: usersPath)
        try editor.add(name: "alice", hash: hash("2580"))
        try editor.add(name: "bob", hash: hash("1397"))
        let codes = OneTimeCodeStore(path: directory.appendingPathComponent("codes").path)
        let forBob = try codes.issue(user: "bob", ttl: 600, length: 8)
        let forAlice = try codes.issue(user: "alice", ttl: 600, length: 8)
        let reference = try verifier()
        try editor.remove(name: "bob")
        #expect(await attempt(reference, "code", forBob.withASCIIBytes { String(decoding: $0, as: UTF8.self) }) == "denied")
        #expect(await attempt(reference, "code", forAlice.withASCIIBytes { String(decoding: $0, as: UTF8.self) }) == "granted")
    }

    @Test func aBrokenFileMeansUnavailableNeverTheOldList() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = "alice:\(try hash("2580"))\n"
        try good.write(toFile: usersPath, atomically: true, encoding: .utf8)
        let reference = try verifier()
        #expect(await attempt(reference, "pin", "2580") == "granted")
        try "alice:\(try hash("2580"))\nbob:truncated-by-an-editor\n".write(toFile: usersPath, atomically: true, encoding: .utf8)
        #expect(await attempt(reference, "pin", "2580") == "unavailable")
        try FileManager.default.removeItem(atPath: usersPath)
        #expect(await attempt(reference, "pin", "2580") == "unavailable")
        try good.write(toFile: usersPath, atomically: true, encoding: .utf8)
        #expect(await attempt(reference, "pin", "2580") == "granted")
    }
}
