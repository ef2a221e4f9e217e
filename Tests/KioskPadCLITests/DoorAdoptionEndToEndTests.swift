import Crypto
import Foundation
import KeypadTestSupport
import KioskPadAccess
import Testing

/// A door adopted with the code on its screen, with real processes over loopback: `kioskpad
/// pair` announces itself to `verifier serve` and prints its code; `verifier terminal adopt`
/// with a mistyped digit seals a delivery the door cannot open (it says so and waits, the
/// secret is taken back); the right code pairs it, its secret lands in its state directory
/// (mode 600) and a PIN typed at that door is granted, signed with its own secret.
@Suite("Doors adopted end to end", .serialized, .heavy)
struct DoorAdoptionEndToEndTests {
    func text(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    @Test func aDoorPairedWithTheCodeOnItsScreenIsGrantedWithItsOwnSecret() async throws {
        let site = try await AccessRulesEndToEndTests.Site(.sqlite)
        try await site.closing {
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            let state = site.directory.appendingPathComponent("door-state")
            let out = site.directory.appendingPathComponent("pair.out")
            let pair = try SpawnedChild(
                [
                    CLI.binary.path, "pair", "--site", "http://127.0.0.1:\(server.port)", "--state-dir", state.path, "--hardware", "gpio keypad, hd44780",
                    "--wait-s", "90",
                ], stdout: .file(out.path), stderr: .file(out.path))
            defer { _ = pair.terminate() }
            #expect(await eventually { self.text(out).contains("pairing code: ") }, "\(text(out))")
            let code = try #require(text(out).split(separator: "\n").first { $0.hasPrefix("pairing code: ") }.map { String($0.dropFirst(14).prefix(14)) })
            #expect(try await CLI.run(["pair", "status", "--state-dir", state.path]).stdout == "waiting: pairing code \(code)\n")
            let waiting = try await site.cli(["verifier", "terminal", "waiting"])
            #expect(waiting.stdout.contains("\(code.prefix(4))-....-....\t127.0.0.1\tgpio keypad, hd44780\t"), "\(waiting.stdout)")
            #expect(!waiting.stdout.contains(code.suffix(9)), "the list never shows the code's secret digits")
            // No waiting door shows this tag.
            let tag = code.prefix(4) == "0000" ? "0001" : "0000"
            let unknown = try await site.cli(["verifier", "terminal", "adopt", "\(tag)-1234-5678", "--name", "front-door"])
            #expect(unknown.status == 2 && unknown.stderr.contains("code: no door waiting shows a code starting \(tag)"), "\(unknown.stderr)")
            // One digit mistyped: sealed, but the door cannot open it; the secret is taken back.
            let last = code.last!.wholeNumberValue!
            let typo = try await site.cli(["verifier", "terminal", "adopt", String(code.dropLast()) + String((last + 1) % 10), "--name", "front-door"])
            #expect(typo.status == 0, "\(typo.stderr)")
            #expect(await eventually { self.text(out).contains("warning: the delivery did not open") }, "\(text(out))")
            let config = site.config
            #expect(await eventually { (try? await CLI.run(["verifier", "terminal", "list", "--config", config]).stdout.contains("front-door")) == false })
            // The right code.
            // Typed on stdin, not as an argument (kept out of ps and the shell's history).
            let adopted = try await site.cli(["verifier", "terminal", "adopt", "--name", "front-door"], stdin: code + "\n")
            #expect(adopted.status == 0 && adopted.stdout.hasPrefix("front-door: sealed for the door at 127.0.0.1"), "\(adopted.stdout)\(adopted.stderr)")
            #expect(!adopted.stderr.contains("argument"), "no warning when the code came on stdin")
            #expect(pair.wait() == 0, "\(text(out))")
            #expect(text(out).contains("paired as front-door: secret in \(state.path)/site.secret"), "\(text(out))")
            for file in ["site.secret", "site.json"] {
                let mode = try FileManager.default.attributesOfItem(atPath: state.appendingPathComponent(file).path)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file)")
            }
            #expect(!FileManager.default.fileExists(atPath: state.appendingPathComponent("pairing-code").path))
            #expect(text(state.appendingPathComponent("site.json")).contains("\"terminal_id\":\"front-door\""))
            #expect(try await site.cli(["verifier", "terminal", "waiting"]).stdout == "no door is waiting to be adopted\n")
            // bob may open front-door only: granted there, signed with the door's own secret;
            // the site secret no longer speaks for front-door.
            let secretFile = state.appendingPathComponent("site.secret").path
            #expect(try await site.simulate("1470", at: "front-door", port: server.port, secretFile: secretFile).contains("Access granted"))
            #expect(!(try await site.simulate("1470", at: "front-door", port: server.port)).contains("Access granted"))
            #expect(text(out).components(separatedBy: String(code.suffix(9))).count == 2, "the code is printed once, when it is made")
        }
    }

    /// `pair --site-key` (or `site_key:` in the door's config) pins the site: a delivery from a
    /// site signing with another key is refused and nothing is stored; the site's own key pairs.
    @Test func aDoorGivenTheSitesKeyIsAdoptedOnlyByThatSite() async throws {
        let site = try await AccessRulesEndToEndTests.Site(.sqlite)
        try await site.closing {
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            let siteKey = try await site.cli(["verifier", "public-key"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let otherKey = "ed25519:" + Data(repeating: 3, count: 32).base64EncodedString()
            for (name, pinned, paired) in [("pinned-elsewhere", otherKey, false), ("pinned-here", siteKey, true)] {
                let state = site.directory.appendingPathComponent(name)
                let out = site.directory.appendingPathComponent(name + ".out")
                let pair = try SpawnedChild(
                    [CLI.binary.path, "pair", "--site", "http://127.0.0.1:\(server.port)", "--state-dir", state.path, "--site-key", pinned, "--wait-s", "60"],
                    stdout: .file(out.path), stderr: .file(out.path))
                defer { _ = pair.terminate() }
                #expect(await eventually { self.text(out).contains("pairing code: ") }, "\(text(out))")
                let code = try #require(text(out).split(separator: "\n").first { $0.hasPrefix("pairing code: ") }.map { String($0.dropFirst(14).prefix(14)) })
                #expect(try await site.cli(["verifier", "terminal", "adopt", code, "--name", name]).status == 0)
                let status = pair.wait()
                let stored = FileManager.default.fileExists(atPath: state.appendingPathComponent("site.secret").path)
                if paired {
                    #expect(status == 0 && stored, "\(text(out))")
                } else {
                    #expect(status != 0 && !stored, "\(text(out))")
                    #expect(text(out).contains("not the site_key this door was given"), "\(text(out))")
                }
            }
            let bad = try await CLI.run(["pair", "--site", "http://127.0.0.1:\(server.port)", "--site-key", "ed25519:short"])
            #expect(bad.status == 2 && bad.stderr.contains("--site-key must be ed25519:"), "\(bad.stderr)")
        }
    }

    /// `pair --site` given twice, for a site of two instances whose first is stopped: the door
    /// is adopted through the second and prints both addresses for its `verifier:` line. An
    /// address given twice, or more than four, is refused before anything is announced.
    @Test func pairGivenTwoSiteAddressesIsAdoptedThroughTheOneThatAnswers() async throws {
        let site = try await AccessRulesEndToEndTests.Site(.sqlite)
        try await site.withStoppedAndRunningInstance { stoppedPort, server in
            let (first, second) = ("http://127.0.0.1:\(stoppedPort)", "http://127.0.0.1:\(server.port)")
            let state = site.directory.appendingPathComponent("two-addresses")

            let twice = try await CLI.run(["pair", "--site", second, "--site", second + "/", "--state-dir", state.path])
            #expect(twice.status == 2 && twice.stderr.contains("--site \(second)/ is given twice"), "\(twice.stderr)")
            let five = try await CLI.run(["pair", "--state-dir", state.path] + (1...5).flatMap { ["--site", "http://127.0.0.1:\(server.port + $0)"] })
            #expect(five.status == 2 && five.stderr.contains("--site is given 5 times: give the site's address 1 to 4 times"), "\(five.stderr)")
            #expect(try await site.cli(["verifier", "terminal", "waiting"]).stdout == "no door is waiting to be adopted\n")

            let out = site.directory.appendingPathComponent("two-addresses.out")
            let pair = try SpawnedChild(
                [CLI.binary.path, "pair", "--site", first, "--site", second, "--state-dir", state.path, "--wait-s", "60"],
                stdout: .file(out.path), stderr: .file(out.path))
            defer { _ = pair.terminate() }
            #expect(await eventually { self.text(out).contains("pairing code: ") }, "\(text(out))")
            let code = try #require(text(out).split(separator: "\n").first { $0.hasPrefix("pairing code: ") }.map { String($0.dropFirst(14).prefix(14)) })
            #expect(try await site.cli(["verifier", "terminal", "adopt", code, "--name", "front-door"]).status == 0)
            #expect(pair.wait() == 0, "\(text(out))")
            #expect(text(out).contains("verifier: {kind: http, urls: [\"\(first)/verify\", \"\(second)/verify\"], secret_file: "), "\(text(out))")
            let secretFile = state.appendingPathComponent("site.secret").path
            #expect(try await site.simulate("1470", at: "front-door", port: server.port, secretFile: secretFile).contains("Access granted"))
        }
    }

    @Test func announcementsAndResultsAreCheckedFieldByField() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let badKey = try await LoopbackHTTP.post(port: server.port, path: "/v1/pair", body: Array(#"{"door_key":"AAAA"}"#.utf8), headers: [])
        #expect(badKey.status == 400 && badKey.body.contains("door_key: must be base64 of the door's 32-byte X25519 public key"), "\(badKey.body)")
        let raw = Data(repeating: 9, count: 32)
        let key = raw.base64EncodedString()
        // The door's half of the exchange: a door of an earlier pairing sends none, and a
        // message of another version is refused by name.
        let noExchange = try await LoopbackHTTP.post(port: server.port, path: "/v1/pair", body: Array(#"{"door_key":"\#(key)"}"#.utf8), headers: [])
        #expect(noExchange.status == 400 && noExchange.body.contains("pake_sid: must be base64 of 16 bytes"), "\(noExchange.body)")
        let half = try PairingExchange.doorHalf(secret: "12345678", doorKey: raw)
        let sid = half.sid.base64EncodedString()
        let otherVersion = CPace.message(share: Data(repeating: 1, count: 32), associatedData: Data("kioskpad pairing v9".utf8)).base64EncodedString()
        let versioned = try await LoopbackHTTP.post(
            port: server.port, path: "/v1/pair", body: Array(#"{"door_key":"\#(key)","pake_message":"\#(otherVersion)","pake_sid":"\#(sid)"}"#.utf8),
            headers: [])
        #expect(versioned.status == 400 && versioned.body.contains("pake_message: made by another pairing version"), "\(versioned.body)")
        let resultKey = Curve25519.Signing.PrivateKey()
        let noResultKey = try await LoopbackHTTP.post(
            port: server.port, path: "/v1/pair",
            body: Array(#"{"door_key":"\#(key)","pake_message":"\#(half.message.base64EncodedString())","pake_sid":"\#(sid)"}"#.utf8), headers: [])
        #expect(noResultKey.status == 400 && noResultKey.body.contains("result_key: must be base64 of the door's 32-byte Ed25519"), "\(noResultKey.body)")
        let exchange =
            #""pake_message":"\#(half.message.base64EncodedString())","pake_sid":"\#(sid)","result_key":"\#(resultKey.publicKey.rawRepresentation.base64EncodedString())""#
        let twoLines = try await LoopbackHTTP.post(
            port: server.port, path: "/v1/pair", body: Array(#"{"door_key":"\#(key)",\#(exchange),"hardware":"a\nb"}"#.utf8), headers: [])
        #expect(twoLines.status == 400 && twoLines.body.contains("hardware: one line"), "\(twoLines.body)")
        let escape = try await LoopbackHTTP.post(
            port: server.port, path: "/v1/pair", body: Array(#"{"door_key":"\#(key)",\#(exchange),"hardware":"\u001b[2J"}"#.utf8), headers: [])
        #expect(escape.status == 400 && escape.body.contains("no control characters"), "\(escape.body)")
        let announced = try await LoopbackHTTP.post(port: server.port, path: "/v1/pair", body: Array(#"{"door_key":"\#(key)",\#(exchange)}"#.utf8), headers: [])
        #expect(announced.status == 201 && announced.body.contains("\"poll_s\":2"), "\(announced.body)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(announced.body.utf8)) as? [String: Any])?["id"] as? String)
        #expect(try await LoopbackHTTP.get(port: server.port, path: "/v1/pair/\(id)").body == "{\"state\":\"waiting\"}")
        #expect(try await LoopbackHTTP.get(port: server.port, path: "/v1/pair/nothing").status == 404)
        let result = try await LoopbackHTTP.post(port: server.port, path: "/v1/pair/\(id)/result", body: Array(#"{"result":"maybe"}"#.utf8), headers: [])
        #expect(result.status == 400 && result.body.contains("result: must be opened or not_opened"), "\(result.body)")
        // `opened` for an announcement with no delivery, unsigned: refused.
        let opened = try await LoopbackHTTP.post(port: server.port, path: "/v1/pair/\(id)/result", body: Array(#"{"result":"opened"}"#.utf8), headers: [])
        #expect(opened.status == 404, "\(opened.body)")
        // A delivery (its code typed at the site, the digits this test drew): only the door's
        // key ends it. Unsigned, signed by another key, or a signature of the other result or
        // of another announcement: 401, and the delivery still waits.
        let nonce = try #require(
            ((try JSONSerialization.jsonObject(with: Data(announced.body.utf8)) as? [String: Any])?["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
        let code = PairingCode.make(doorKey: raw, nonce: nonce, secret: "12345678")
        let config = directory.appendingPathComponent("verifier.yaml").path
        let adopted = try await CLI.run(["verifier", "terminal", "adopt", "--name", "lobby", "--config", config], stdin: code.shown + "\n")
        #expect(adopted.status == 0, "\(adopted.stdout)\(adopted.stderr)")
        let stranger = Curve25519.Signing.PrivateKey()
        let forged = [
            #"{"result":"not_opened"}"#,
            #"{"result":"not_opened","result_signature":"\#(try PairingResultSignature.sign(.notOpened, announcement: id, key: stranger))"}"#,
            #"{"result":"not_opened","result_signature":"\#(try PairingResultSignature.sign(.opened, announcement: id, key: resultKey))"}"#,
            #"{"result":"not_opened","result_signature":"\#(try PairingResultSignature.sign(.notOpened, announcement: "other", key: resultKey))"}"#,
        ]
        for body in forged {
            let refused = try await LoopbackHTTP.post(port: server.port, path: "/v1/pair/\(id)/result", body: Array(body.utf8), headers: [])
            #expect(refused.status == 401 && refused.body.contains("result_signature: must be"), "\(body): \(refused.body)")
        }
        #expect(try await LoopbackHTTP.get(port: server.port, path: "/v1/pair/\(id)").body.contains("\"state\":\"delivered\""))
        let signed = #"{"result":"not_opened","result_signature":"\#(try PairingResultSignature.sign(.notOpened, announcement: id, key: resultKey))"}"#
        let notOpened = try await LoopbackHTTP.post(port: server.port, path: "/v1/pair/\(id)/result", body: Array(signed.utf8), headers: [])
        #expect(notOpened.status == 200 && notOpened.body == #"{"failures":1,"max_failures":3}"#, "\(notOpened.body)")
        #expect(try await LoopbackHTTP.get(port: server.port, path: "/v1/pair/\(id)").body == "{\"state\":\"waiting\"}")
    }

    /// Behind a reverse proxy named in `server.trusted_proxies`, announcements count for the
    /// client it forwards for (`X-Forwarded-For`), so doors behind one proxy do not share one
    /// address's limit; without the setting the header is ignored and the peer is counted.
    @Test func behindATrustedProxyEachForwardedClientHasItsOwnLimit() async throws {
        func announce(_ port: Int, forwardedFor: String) async throws -> LoopbackHTTP.Answer {
            let raw = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation
            let half = try PairingExchange.doorHalf(secret: "12345678", doorKey: raw)
            let result = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation
            let body =
                #"{"door_key":"\#(raw.base64EncodedString())","pake_message":"\#(half.message.base64EncodedString())","pake_sid":"\#(half.sid.base64EncodedString())","result_key":"\#(result.base64EncodedString())"}"#
            return try await LoopbackHTTP.post(port: port, path: "/v1/pair", body: Array(body.utf8), headers: [("X-Forwarded-For", forwardedFor)])
        }
        let proxied = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  trusted_proxies: [127.0.0.1]\n")
        let server = try await VerifierProcess(directory: proxied)
        for host in 1...5 {
            let answer = try await announce(server.port, forwardedFor: "203.0.113.9, 198.51.100.\(host)")
            #expect(answer.status == 201, "client \(host): \(answer.body)")
        }
        for _ in 1...3 { _ = try await announce(server.port, forwardedFor: "198.51.100.1") }
        let fifth = try await announce(server.port, forwardedFor: "198.51.100.1")
        #expect(fifth.status == 429 && fifth.body.contains("from 198.51.100.1 wait"), "\(fifth.body)")
        let waiting = try await CLI.run(["verifier", "terminal", "waiting", "--config", proxied.appendingPathComponent("verifier.yaml").path])
        #expect(waiting.stdout.contains("\t198.51.100.5\t") && !waiting.stdout.contains("\t127.0.0.1\t"), "\(waiting.stdout)")
        server.stop()
        let direct = try await VerifierProcess.prepare(pin: "3691")
        let plain = try await VerifierProcess(directory: direct)
        defer { plain.stop() }
        for host in 1...4 { #expect(try await announce(plain.port, forwardedFor: "198.51.100.\(host)").status == 201) }
        let ignored = try await announce(plain.port, forwardedFor: "198.51.100.77")
        #expect(ignored.status == 429 && ignored.body.contains("from 127.0.0.1 wait"), "\(ignored.body)")
    }
}

extension AccessRulesEndToEndTests.Site {
    /// `body` with the port of an instance of this site that listened and has stopped, and a
    /// running instance (stopped after): a site of two instances whose first is down. Closes
    /// the site after.
    func withStoppedAndRunningInstance(_ body: (_ stoppedPort: Int, _ server: VerifierProcess) async throws -> Void) async throws {
        try await closing {
            let stopped = try await VerifierProcess(directory: directory)
            _ = await stopped.stopped()
            let server = try await VerifierProcess(directory: directory)
            defer { server.stop() }
            try await body(stopped.port, server)
        }
    }
}
