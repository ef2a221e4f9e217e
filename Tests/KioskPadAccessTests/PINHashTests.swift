import KioskPadAccess
import KioskPadCore
import Testing

@Suite("PIN hashes and the users file")
struct PINHashTests {
    // A low work factor keeps tests fast; the format carries it, so this is the real code path.
    let iterations = 1_000

    @Test func hashStringRoundTrips() throws {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "1234")!, iterations: iterations)
        let text = hash.description
        #expect(text.hasPrefix("$pbkdf2-sha256$i=1000$"))
        #expect(try PINHash(parsing: text) == hash)
        #expect(!text.contains("1234"))
    }

    @Test func matchesOnlyTheRightPIN() throws {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4711")!, iterations: iterations)
        #expect(hash.matches(SecretDigits(ascii: "4711")!))
        #expect(!hash.matches(SecretDigits(ascii: "4712")!))
        #expect(!hash.matches(SecretDigits(ascii: "47110")!))
    }

    @Test func saltsDiffer() throws {
        let pin = SecretDigits(ascii: "1234")!
        #expect(try PINHash.make(pin: pin, iterations: iterations) != PINHash.make(pin: pin, iterations: iterations))
    }

    @Test func knownVectorMatchesAnIndependentPBKDF2() throws {
        // Python: hashlib.pbkdf2_hmac('sha256', b'1234', b'kioskpad-salt-16', 1000).hex()
        let salt = Array("kioskpad-salt-16".utf8)
        let expected: [UInt8] = hex("4bdce30bbd40de49175fd4ef2117ce577e01dd4444b7e13f191e91c8a33e9310")
        let hash = PINHash(iterations: 1000, salt: salt, hash: expected)
        #expect(hash.matches(SecretDigits(ascii: "1234")!))
        #expect(!hash.matches(SecretDigits(ascii: "1235")!))
    }

    @Test(arguments: [
        ("alice:plain1234", "unknown hash scheme"),
        ("alice:$pbkdf2-sha256$i=10$c2FsdHNhbHQ$AAAA", "iterations must be"),
        ("alice:$pbkdf2-sha256$i=1000$c2FsdHNhbHQ$AAAA", "hash is not base64 of 32 bytes"),
        ("no colon here", "expected NAME:HASH"),
        ("bad name!:$pbkdf2-sha256$i=1000$c2FsdHNhbHQ$AAAA", "user name 'bad name!'"),
    ])
    func wrongLinesGiveAClearErrorNamingTheLine(line: String, reason: String) {
        let text = "# users\n\n" + line + "\n"
        #expect {
            try UsersFile(parsing: text, source: "users")
        } throws: { error in
            let description = String(describing: error)
            return description.hasPrefix("users line 3: ") && description.contains(reason)
        }
    }

    @Test func duplicateUsersAreRejected() throws {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "1234")!, iterations: iterations)
        let text = "bob:\(hash)\nbob:\(hash)\n"
        #expect(throws: UsersFile.ParseError.self) { try UsersFile(parsing: text, source: "u") }
    }

    @Test func localVerifierGrantsAnyListedUserAndDeniesOthers() async throws {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "1111")!, iterations: iterations)
        let bob = try PINHash.make(pin: SecretDigits(ascii: "222222")!, iterations: iterations)
        let users = try UsersFile(parsing: "alice:\(alice)\nbob:\(bob)\n", source: "u")
        let verifier = LocalVerifier(users: users)
        func attempt(_ pin: String) -> VerificationAttempt {
            VerificationAttempt(terminalID: "t", kind: .pin, value: SecretDigits(ascii: pin)!)
        }
        #expect(await verifier.verify(attempt("1111")) == .granted(user: "alice"))  // who entered
        #expect(await verifier.verify(attempt("222222")) == .granted(user: "bob"))
        #expect(await verifier.verify(attempt("2222")) == .denied())
        #expect(await verifier.verify(attempt("0000")) == .denied())
    }

    @Test func constantTimeEqualityCompares() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
    }
}

func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
