import Dispatch
import Foundation
import KeypadCore
import KeypadVerifier
import Synchronization
import Testing

@Suite("Users file editor (kioskpad verifier user)")
struct UsersFileEditorTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-users-\(UUID())")
    var path: String { directory.appendingPathComponent("users").path }

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func hash(_ pin: String) throws -> PINHash {
        try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1_000)
    }

    func users() throws -> UsersFile { try UsersFile.load(path: path) }

    func text() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func addCreatesTheFileAndAUserWhosePINMatches() throws {
        let editor = UsersFileEditor(path: path)
        try editor.add(name: "alice", hash: hash("2580"))
        try editor.add(name: "bob", hash: hash("1397"))
        #expect(try users().match(pin: SecretDigits(ascii: "2580")!)?.name == "alice")
        #expect(try users().match(pin: SecretDigits(ascii: "1397")!)?.name == "bob")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: UsersFileEditor.EditError.self) { try editor.add(name: "alice", hash: hash("1111")) }
        #expect(try users().match(pin: SecretDigits(ascii: "1111")!) == nil)
    }

    @Test func setPINReplacesTheHashAndKeepsTheTOTPSecret() throws {
        let editor = UsersFileEditor(path: path)
        try editor.add(name: "alice", hash: hash("2580"))
        let secret = TOTP.newSecret()
        try editor.setTOTP(name: "alice", secret: secret)
        try editor.setPIN(name: "alice", hash: hash("4711"))
        let alice = try #require(try users().users.first)
        #expect(alice.totpSecret == secret)
        #expect(try users().match(pin: SecretDigits(ascii: "4711")!)?.name == "alice")
        #expect(try users().match(pin: SecretDigits(ascii: "2580")!) == nil)
        #expect(throws: UsersFileEditor.EditError.self) { try editor.setPIN(name: "carol", hash: hash("1234")) }
    }

    @Test func removeTakesEveryLineOfTheUserAndKeepsTheRest() throws {
        let card = try hash("00065537")
        try """
            # front door
            alice:\(try hash("2580"))
            bob:\(try hash("1397"))
            alice:\(try hash("9999")):duress
            alice:\(card):card

            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o640)
        let editor = UsersFileEditor(path: path)
        #expect(try editor.remove(name: "alice") == 3)
        #expect(try text().hasPrefix("# front door\nbob:"))
        #expect(try users().users.map(\.name) == ["bob"])
        // The edit kept the file's mode (the verifier's account may read it through its group).
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
        #expect(throws: UsersFileEditor.EditError.self) { try editor.remove(name: "alice") }
    }

    @Test func aDuressPINNeedsAUserAndReplacesTheEarlierOne() throws {
        let editor = UsersFileEditor(path: path)
        let missing = #expect(throws: UsersFileEditor.EditError.self) { try editor.setDuress(name: "alice", hash: hash("9999")) }
        #expect(missing?.description.contains("there is no users file") == true)
        try editor.add(name: "bob", hash: hash("1397"))
        #expect(throws: UsersFileEditor.EditError.self) { try editor.setDuress(name: "alice", hash: hash("9999")) }
        try editor.add(name: "alice", hash: hash("2580"))
        try editor.setDuress(name: "alice", hash: hash("9999"))
        try editor.setDuress(name: "alice", hash: hash("8888"))
        #expect(try users().match(pin: SecretDigits(ascii: "8888")!).map { "\($0.name) \($0.duress)" } == "alice true")
        #expect(try users().match(pin: SecretDigits(ascii: "9999")!) == nil)
        #expect(try users().match(pin: SecretDigits(ascii: "2580")!).map { "\($0.name) \($0.duress)" } == "alice false")
    }

    @Test func cardsAreAddedAndRemovedOneByNumber() throws {
        let editor = UsersFileEditor(path: path)
        try editor.addCard(name: "alice", hash: hash("00065537"))
        try editor.addCard(name: "alice", hash: hash("00070001"))
        #expect(try users().match(card: SecretDigits(ascii: "00065537")!) == "alice")
        #expect(try users().match(pin: SecretDigits(ascii: "00065537")!) == nil)  // a card is never a PIN
        #expect(throws: UsersFileEditor.EditError.self) { try editor.removeCard(name: "alice", value: SecretDigits(ascii: "00099999")!) }
        try editor.removeCard(name: "alice", value: SecretDigits(ascii: "00065537")!)
        #expect(try users().match(card: SecretDigits(ascii: "00065537")!) == nil)
        #expect(try users().match(card: SecretDigits(ascii: "00070001")!) == "alice")
    }

    @Test func listShowsWhatEachUserHasAndNoHashOrSecret() throws {
        let editor = UsersFileEditor(path: path)
        try editor.add(name: "alice", hash: hash("2580"))
        try editor.setTOTP(name: "alice", secret: TOTP.newSecret())
        try "alice:\(try hash("9999")):duress\nbob:\(try hash("00065537")):card\n".write(
            toFile: path, atomically: false, encoding: .utf8)  // replaced: alice has only a duress line now
        try editor.add(name: "alice", hash: hash("2580"))
        #expect(try editor.list() == [
            .init(name: "alice", hasPIN: true, hasTOTP: false, hasDuressPIN: true, cards: 0),
            .init(name: "bob", hasPIN: false, hasTOTP: false, hasDuressPIN: false, cards: 1),
        ])
    }

    @Test func aBrokenFileIsNeverWrittenOver() throws {
        let broken = "alice:not-a-hash\n"
        try broken.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: UsersFile.ParseError.self) { try UsersFileEditor(path: path).add(name: "bob", hash: hash("1397")) }
        #expect(try text() == broken)
    }

    @Test func editsAtTheSameTimeAllLand() throws {
        let editor = UsersFileEditor(path: path)
        let hashes = try (0..<4).map { try hash("12\($0)4") }
        let failures = ManagedFailures()
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            do {
                try editor.add(name: "user\(index)", hash: hashes[index % 4])
            } catch {
                failures.add("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try Set(users().users.map(\.name)) == Set((0..<24).map { "user\($0)" }))
    }

    @Test func aTOTPSecretRoundTripsThroughBase32AndTheURI() throws {
        let secret = TOTP.newSecret()
        #expect(secret.count == 20)
        #expect(TOTP.base32Decode(TOTP.base32Encode(secret)) == secret)
        #expect(TOTP.base32Encode(Array("12345678901234567890".utf8)) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")  // RFC 6238's key
        let uri = TOTP(secret: secret).provisioningURI(account: "alice", issuer: "Front Door")
        #expect(uri.hasPrefix("otpauth://totp/Front%20Door:alice?secret=\(TOTP.base32Encode(secret))&issuer=Front%20Door"))
        #expect(uri.contains("digits=6") && uri.contains("period=30"))
    }
}

/// Errors collected from concurrent work.
final class ManagedFailures: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}
