import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints
import Testing

@Suite("Standard Webhooks signatures")
struct WebhookSignatureTests {
    // The Standard Webhooks reference vector (also produced by the `standardwebhooks` package).
    let secret = try! WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    let body = Array("{\"test\": 2432232314}".utf8)

    @Test func signsTheReferenceVector() {
        #expect(
            WebhookSignature.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body, secret: secret)
                == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func verifiesAndRefuses() {
        let now = Date(timeIntervalSince1970: 1_614_265_330)
        let signature = WebhookSignature.sign(id: "m1", timestamp: 1_614_265_330, body: body, secret: secret)
        func check(id: String? = "m1", timestamp: String? = "1614265330", signature sig: String? = nil, body b: [UInt8]? = nil, at: Date? = nil)
            -> WebhookSignature.Failure?
        {
            WebhookSignature.verify(id: id, timestamp: timestamp, signature: sig ?? signature, body: b ?? body, secret: secret, now: at ?? now)
        }
        #expect(check() == nil)
        #expect(check(signature: "v1,bogus " + signature) == nil)
        #expect(check(body: Array("{\"test\": 2432232315}".utf8)) == .badSignature)
        #expect(check(id: "m2") == .badSignature)
        #expect(check(id: nil) == .missingHeaders)
        #expect(check(timestamp: "soon") == .badTimestamp)
        #expect(check(at: now.addingTimeInterval(301)) == .stale)
        #expect(check(at: now.addingTimeInterval(-299)) == nil)
    }

    @Test func secretsMustBeWhsecBase64AndNeverPrint() throws {
        #expect(throws: WebhookSecret.FormatError.self) { try WebhookSecret(parsing: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") }
        #expect(throws: WebhookSecret.FormatError.self) { try WebhookSecret(parsing: "whsec_not base64!") }
        #expect(throws: WebhookSecret.FormatError.self) { try WebhookSecret(parsing: "whsec_c2hvcnQ=") }
        let generated = WebhookSecret.generate()
        #expect(try WebhookSecret(parsing: generated.text + "\n").key == generated.key)
        #expect(!"\(generated)".contains(generated.text))
    }

    @Test func secretSourcesReadFilesEnvironmentAndCredentials() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-cred-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "whsec_abc\n".write(to: directory.appendingPathComponent("verifier"), atomically: true, encoding: .utf8)
        #expect(try SecretSource.credential("verifier").read(environment: ["CREDENTIALS_DIRECTORY": directory.path]) == "whsec_abc\n")
        #expect(try SecretSource.environment("S").read(environment: ["S": "x"]) == "x")
        let unset = #expect(throws: SecretSource.ReadError.self) { try SecretSource.environment("S").read(environment: [:]) }
        #expect(unset?.description == "environment variable S: not set")
        let noDirectory = #expect(throws: SecretSource.ReadError.self) { try SecretSource.credential("v").read(environment: [:]) }
        #expect(noDirectory?.description.hasPrefix("systemd credential v: CREDENTIALS_DIRECTORY is not set") == true)
        let missing = #expect(throws: SecretSource.ReadError.self) {
            try SecretSource.credential("nope").read(environment: ["CREDENTIALS_DIRECTORY": directory.path])
        }
        #expect(missing?.description.hasPrefix("systemd credential nope: cannot read \(directory.path)/nope") == true)
        // A secret that reads but is not one is a format error that names its source.
        let format = #expect(throws: WebhookSecret.FormatError.self) { try WebhookSecret(reading: .environment("S"), environment: ["S": "abc"]) }
        #expect(format?.description.hasPrefix("environment variable S: must start with whsec_") == true)
    }
}

@Suite("Verification messages")
struct VerificationMessageTests {
    @Test func requestBodyRoundTrips() throws {
        let attempt = VerificationAttempt(terminalID: "door-1", kind: .code, value: SecretDigits(ascii: "123456")!)
        let body = VerificationRequestBody.encode(attempt)
        let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: String]
        #expect(json?["terminal_id"] == "door-1")
        #expect(json?["kind"] == "code")
        #expect(json?["attempt_id"] == attempt.attemptID.uuidString.lowercased())
        #expect(json?["entered_at"]?.hasSuffix("Z") == true)
        let decoded = try VerificationRequestBody.decode(body)
        #expect(decoded.value.withASCIIBytes { Array($0) } == Array("123456".utf8))
    }

    @Test(arguments: [
        "{}", "not json", "{\"terminal_id\":\"t\",\"kind\":\"pin\",\"value\":\"12\",\"attempt_id\":\"a\"}",
        "{\"terminal_id\":\"t\",\"kind\":\"face\",\"value\":\"1234\",\"attempt_id\":\"a\"}",
        "{\"terminal_id\":\"t\",\"kind\":\"pin\",\"value\":\"12a4\",\"attempt_id\":\"a\"}",
    ])
    func badRequestsAreRefused(text: String) {
        #expect(throws: VerificationRequestBody.Invalid.self) { try VerificationRequestBody.decode(Array(text.utf8)) }
    }

    /// The body held to its schema: each case names what is wrong.
    @Test(arguments: [
        (#"" door-7""#, #""2026-11-20T10:00:00Z""#, "", "terminal_id must be 1-64"),
        (#""door-7 ""#, #""2026-11-20T10:00:00Z""#, "", "terminal_id must be 1-64"),
        ("\"door-7\u{200B}\"", #""2026-11-20T10:00:00Z""#, "", "terminal_id must be 1-64"),
        (#""door-7""#, #""""#, "", "entered_at must be an RFC 3339 date-time"),
        (#""door-7""#, #""yesterday""#, "", "entered_at must be an RFC 3339 date-time"),
        (#""door-7""#, "null", "", "entered_at must be an RFC 3339 date-time"),
        (#""door-7""#, #""2026-11-20T10:00:00Z""#, #","extra":1"#, "unknown property extra"),
    ])
    func aBodyIsHeldToItsSchema(terminal: String, enteredAt: String, extra: String, message: String) {
        let body =
            #"{"terminal_id":\#(terminal),"kind":"pin","value":"1234","attempt_id":"9a1f0f0e-3c51-4c2b-9d7e-2d1c7e2b8a11","entered_at":\#(enteredAt)\#(extra)}"#
        #expect {
            _ = try VerificationRequestBody.decode(Array(body.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    /// `card_pin` carries the card in `value` and the PIN in `pin`; `pin` goes with no other kind.
    @Test func aCardAndPINBodyCarriesBothAndOtherKindsRefuseAPIN() throws {
        let attempt = VerificationAttempt(
            terminalID: "vault", kind: .cardPIN, value: SecretDigits(ascii: "00123456")!, pin: SecretDigits(ascii: "2468")!)
        let decoded = try VerificationRequestBody.decode(VerificationRequestBody.encode(attempt))
        #expect(decoded.kind == .cardPIN)
        #expect(decoded.value.withASCIIBytes { String(decoding: $0, as: UTF8.self) } == "00123456")
        #expect(decoded.pin?.withASCIIBytes { String(decoding: $0, as: UTF8.self) } == "2468")
        func refusal(_ fields: String) -> String {
            let body = #"{"terminal_id":"vault",\#(fields),"attempt_id":"9a1f0f0e-3c51-4c2b-9d7e-2d1c7e2b8a11","entered_at":"2026-11-20T10:00:00Z"}"#
            do {
                _ = try VerificationRequestBody.decode(Array(body.utf8))
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(#""kind":"card_pin","value":"00123456""#).contains("kind card_pin needs pin"))
        #expect(refusal(#""kind":"card","value":"00123456","pin":"2468""#).contains("pin is only sent with kind card_pin"))
        #expect(refusal(#""kind":"card_pin","value":"00123456","pin":"24""#).contains("pin must be 4 to 12 digits"))
        #expect(refusal(#""kind":"card_pin","value":"00123456","pin":"24x8""#).contains("pin must be 4 to 12 digits"))
        #expect(refusal(#""kind":"badge","value":"00123456""#).contains("kind must be pin, code, card or card_pin"))
    }

    @Test func anAttemptIDThatIsNotAUUIDIsRefused() {
        let body = #"{"terminal_id":"door-7","kind":"pin","value":"1234","attempt_id":"a","entered_at":"2026-11-20T10:00:00Z"}"#
        #expect(throws: VerificationRequestBody.Invalid.self) { try VerificationRequestBody.decode(Array(body.utf8)) }
    }

    @Test func responsesDecodeStrictlyAndPassTheUnlockTimeAsSent() throws {
        func decode(_ text: String) throws -> AttemptOutcome {
            try VerificationResponseBody.decode(Array(text.utf8))
        }
        #expect(try decode("{\"decision\":\"granted\",\"unlock_seconds\":600,\"message\":\"Hi\"}") == .granted(message: "Hi", unlockSeconds: 600))
        #expect(try decode("{\"decision\":\"denied\"}") == .denied())
        // The one reason a verifier sends; any other is not the door's to know and is dropped.
        #expect(try decode("{\"decision\":\"denied\",\"reason\":\"second_factor_required\"}") == .denied(reason: .secondFactorRequired))
        #expect(try decode("{\"decision\":\"denied\",\"reason\":\"holiday\"}") == .denied())
        #expect(throws: VerificationResponseBody.Invalid.self) { try decode("{\"decision\":\"maybe\"}") }
        #expect(throws: VerificationResponseBody.Invalid.self) { try decode("<html>") }
    }

    @Test func verifierURLsRefusePlainHTTPOffLoopback() {
        #expect(VerifierURL.problem("http://127.0.0.1:8787/verify", allowInsecureHTTP: false) == nil)
        #expect(VerifierURL.problem("http://localhost/verify", allowInsecureHTTP: false) == nil)
        #expect(VerifierURL.problem("http://[::1]:80/verify", allowInsecureHTTP: false) == nil)
        #expect(VerifierURL.problem("https://verifier.example/verify", allowInsecureHTTP: false) == nil)
        #expect(VerifierURL.problem("http://10.0.0.5/verify", allowInsecureHTTP: false)?.contains("unencrypted") == true)
        #expect(VerifierURL.problem("http://10.0.0.5/verify", allowInsecureHTTP: true) == nil)
        #expect(VerifierURL.problem("ftp://x/verify", allowInsecureHTTP: true) != nil)
    }

    /// A name that merely starts with 127. is a DNS name: DNS could send the PIN anywhere.
    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.255.254", true), ("127.10.0.3", true), ("[::1]", true), ("localhost", true),
        ("127.evil.example", false), ("127.0.0.1.nip.io", false), ("localhost.evil.example", false),
        ("127.1", false), ("0x7f.0.0.1", false), ("[::ffff:10.0.0.1]", false), ("[::2]", false), ("128.0.0.1", false),
        ("10.0.0.5", false), ("localhost.", false),
    ])
    func onlyLoopbackAddressesMayUsePlainHTTP(host: String, loopback: Bool) {
        let problem = VerifierURL.problem("http://\(host):8787/verify", allowInsecureHTTP: false)
        #expect((problem == nil) == loopback, "\(host): \(problem ?? "allowed")")
    }
}

/// `POST /v1/enrol`'s bodies: the code and the PIN chosen in, the result out.
@Suite("Enrolment messages")
struct EnrolmentMessageTests {
    @Test func aRequestRoundTripsAndIsHeldToItsSchema() throws {
        let id = UUID()
        let body = EnrolmentRequestBody.encode(
            terminalID: "front-door", code: SecretDigits(ascii: "48213907")!, pin: SecretDigits(ascii: "2580")!, attemptID: id, enteredAt: Date())
        let decoded = try EnrolmentRequestBody.decode(body)
        #expect(decoded.terminalID == "front-door" && decoded.attemptID == id.uuidString.lowercased())
        #expect(decoded.code.withASCIIBytes { String(decoding: $0, as: UTF8.self) } == "48213907")
        #expect(decoded.pin.withASCIIBytes { String(decoding: $0, as: UTF8.self) } == "2580")
        func refusal(_ text: String) -> String {
            do {
                _ = try EnrolmentRequestBody.decode(Array(text.utf8))
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        let tail = #""attempt_id":"9a1f0f0e-3c51-4c2b-9d7e-2d1c7e2b8a11","entered_at":"2026-11-20T10:00:00Z""#
        #expect(refusal(#"{"terminal_id":"d","code":"123","pin":"2580","# + tail + "}").contains("code must be 4 to 12 digits"))
        #expect(refusal(#"{"terminal_id":"d","code":"1234","pin":"25a0","# + tail + "}").contains("pin must be 4 to 12 digits"))
        #expect(refusal(#"{"terminal_id":"d","code":"1234","pin":"2580","value":"1","# + tail + "}").contains("unknown property value"))
        #expect(refusal(#"{"terminal_id":"d","code":"1234","# + tail + "}").contains("not the enrolment JSON"))
    }

    @Test func answersDecodeStrictly() throws {
        #expect(try EnrolmentResponseBody.decode(EnrolmentResponseBody.encode(.pinSet(user: "ana"))) == .pinSet(user: "ana"))
        #expect(try EnrolmentResponseBody.decode(EnrolmentResponseBody.encode(.refused(.weakPIN))) == .refused(.weakPIN))
        #expect(throws: VerificationResponseBody.Invalid.self) { try EnrolmentResponseBody.decode(Array(#"{"result":"refused","reason":"because"}"#.utf8)) }
        #expect(throws: VerificationResponseBody.Invalid.self) { try EnrolmentResponseBody.decode(Array(#"{"result":"granted"}"#.utf8)) }
    }
}
