import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// The Doors page's waiting list and form on both stores: a door that announced itself is
/// listed by the first four digits of its code only; the code typed in the form adopts it
/// (the delivery opens with the door's key and code and names it), audited with the
/// administrator; a malformed code, an unknown one and a bad name are refused with what is wrong.
@Suite("Site console: doors adopted from the Doors page", .serialized)
struct ConsoleDoorAdoptionTests {
    @Test("A waiting door is adopted with the code read on it", arguments: StoreUnderTest.Kind.allCases)
    func adopt(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let nonce = Data(repeating: 3, count: 16)
            let now = harness.clock.now
            let unpaired = try PairingDoorUnderTest()
            let door = unpaired.waiting(id: "a1", nonce: nonce, hardware: "gpio keypad <b>", announced: now)
            try await harness.under.administration.announceDoor(door, now: now)
            let code = unpaired.code(nonce: nonce)
            let browser = Browser(client)
            try await browser.logIn()
            let page = String(buffer: try await browser.get("/console/doors").body)
            #expect(page.contains("<td>\(code.tag)-....-....</td><td>192.0.2.10</td><td>gpio keypad &lt;b&gt;</td>"), "\(page)")
            #expect(!page.contains(code.secret))
            let csrf = try await browser.csrf()
            let malformed = try await browser.post("/console/doors/adopt", [("csrf", csrf), ("code", "12-34"), ("name", "front-door")])
            #expect(malformed.status == .badRequest && String(buffer: malformed.body).contains("code: type the twelve digits"))
            let other = code.tag == "0000" ? "0001" : "0000"
            let unknown = try await browser.post("/console/doors/adopt", [("csrf", csrf), ("code", "\(other)-1234-5678"), ("name", "front-door")])
            #expect(unknown.status == .notFound && String(buffer: unknown.body).contains("no door waiting shows a code starting \(other)"))
            let badName = try await browser.post("/console/doors/adopt", [("csrf", csrf), ("code", code.shown), ("name", "front door")])
            #expect(badName.status == .badRequest && String(buffer: badName.body).contains("name: &#39;front door&#39; must be"))
            let adopted = try await browser.post("/console/doors/adopt", [("csrf", csrf), ("code", code.shown), ("name", "front-door")])
            #expect(adopted.status == .seeOther && adopted.headers[.location] == "/console/doors?done=adopted")
            let (_, sealed) = try #require(try await harness.under.administration.pairing(id: "a1", now: now))
            let bundle = try JSONDecoder().decode(
                PairingBundle.self, from: try unpaired.open(try #require(sealed), announcement: "a1", nonce: nonce))
            #expect(bundle.terminalID == "front-door" && bundle.replicaPublicKey.hasPrefix("ed25519:"))
            let after = String(buffer: try await browser.get("/console/doors?done=adopted").body)
            #expect(after.contains("sealed for front-door") && after.contains("it shows it is paired within seconds"), "\(after)")
            let audit = try #require(try await harness.under.auditRecords().last)
            #expect(audit["action"] == "door_adopt" && audit["admin"] == "alice" && audit["terminal_id"] == "front-door" && audit["pairing_tag"] == code.tag)

            // Door secrets: the adopted door's is rotated, a door given its secret by hand is
            // refused a rotation (said why), both are retired; never a secret on the page.
            try await harness.under.administration.addDoor(terminalID: "side-door", secret: .generate())
            let keys = String(buffer: try await browser.get("/console/doors").body)
            #expect(keys.contains("<td>front-door</td>") && keys.contains("<td class=\"standing\">adopted</td>"), "\(keys)")
            #expect(keys.contains("<td class=\"standing\">hand-given</td>") && !keys.contains("whsec_") && !keys.contains(bundle.secret))
            let rotated = try await browser.post("/console/doors/rotate", [("csrf", csrf), ("door", "front-door")])
            #expect(rotated.status == .seeOther && rotated.headers[.location] == "/console/doors?done=rotated")
            #expect(
                try await harness.under.store.doorKey(terminal: "front-door").ownSecret?.text == bundle.secret,
                "the old secret works until the door uses the new")
            let byHand = try await browser.post("/console/doors/rotate", [("csrf", csrf), ("door", "side-door")])
            #expect(byHand.status == .badRequest && String(buffer: byHand.body).contains("was given its secret by hand"))
            #expect(String(buffer: try await browser.get("/console/doors?done=rotated").body).contains("<td class=\"standing\">rotating</td>"))
            // Settings for adopted doors: set for the site, a bad key refused naming it, and what
            // a door reported (a refusal with its reason) shown beside it.
            let saved = try await browser.post(
                "/console/doors/settings",
                [("csrf", csrf), ("scope", "site"), ("set", "entry.timeout_s=15\ndisplay.texts.enter_pin=PIN <please>"), ("remove", "")])
            #expect(saved.status == .seeOther && saved.headers[.location] == "/console/doors?done=settings")
            let badKey = try await browser.post("/console/doors/settings", [("csrf", csrf), ("scope", "site"), ("set", "keypad.chip=gpiochip1")])
            #expect(badKey.status == .badRequest && String(buffer: badKey.body).contains("&#39;keypad.chip&#39; is not a setting a site gives its doors"))
            let nowhere = try await browser.post("/console/doors/settings", [("csrf", csrf), ("scope", "nowhere"), ("set", "entry.timeout_s=9")])
            #expect(nowhere.status == .badRequest && String(buffer: nowhere.body).contains("is not a door of this site"))
            try await harness.under.administration.noteSettings(
                door: "front-door", running: 1, refused: (2, "entry.timeout_s: 0 is out of range"), replicaKeys: "", now: now)
            let settingsPage = String(buffer: try await browser.get("/console/doors?done=settings").body)
            #expect(settingsPage.contains("<td>site</td><td>entry.timeout_s</td><td>15</td>"), "\(settingsPage)")
            #expect(settingsPage.contains("<td>display.texts.enter_pin</td><td>&#39;PIN &lt;please&gt;&#39;</td>"), "escaped: \(settingsPage)")
            #expect(settingsPage.contains("runs version 1; refused version 2: entry.timeout_s: 0 is out of range"))
            #expect(settingsPage.contains("<td class=\"settings\">its own file</td>"), "a hand-given door runs its own file")
            let settingsAudit = try await harness.under.auditRecords().filter { $0["action"] == "settings_set" }
            #expect(settingsAudit.count == 1 && settingsAudit[0]["admin"] == "alice" && settingsAudit[0]["scope"] == "site")
            // The replica key: rotated, finishing refused (409) while front-door has not said it
            // holds the next key, then finished once it has; public keys only, one record each.
            let signing = try #require(harness.under.administration as? any ReplicaKeeping)
            let first = try await signing.publicKey()
            #expect(String(buffer: try await browser.get("/console/doors").body).contains("<td><code>\(first)</code></td>"))
            let rotation = try await browser.post("/console/doors/replica-key/rotate", [("csrf", csrf)])
            #expect(rotation.status == .seeOther && rotation.headers[.location] == "/console/doors?done=replica-rotated")
            let next = try #require(try await signing.signingKeys().nextPublic)
            let rotating = String(buffer: try await browser.get("/console/doors?done=replica-rotated").body)
            #expect(rotating.contains("<td><code>\(next)</code></td>") && rotating.contains("<td class=\"waiting\">front-door</td>"), "\(rotating)")
            let early = try await browser.post("/console/doors/replica-key/finish", [("csrf", csrf)])
            #expect(early.status == .conflict && String(buffer: early.body).contains("front-door has not yet said it holds the next key"))
            try await harness.under.administration.noteSettings(
                door: "front-door", running: 1, refused: nil, replicaKeys: "\(first) \(next)", now: now)
            let finished = try await browser.post("/console/doors/replica-key/finish", [("csrf", csrf)])
            #expect(finished.status == .seeOther && finished.headers[.location] == "/console/doors?done=replica-finished")
            let afterRotation = String(buffer: try await browser.get("/console/doors").body)
            #expect(try await signing.publicKey() == next && afterRotation.contains("Rotate replica key"))
            let replicaAudit = try await harness.under.auditRecords().filter { $0["action"]?.hasPrefix("replica_key") == true }
            #expect(replicaAudit.map { "\($0["action"]!) \($0["admin"]!)" } == ["replica_key_rotate alice", "replica_key_finish alice"])
            for door in ["front-door", "side-door"] {
                let retired = try await browser.post("/console/doors/retire", [("csrf", csrf), ("door", door)])
                #expect(retired.status == .seeOther && retired.headers[.location] == "/console/doors?done=retired")
            }
            let typo = try await browser.post("/console/doors/retire", [("csrf", csrf), ("door", "frnot-door")])
            #expect(typo.status == .badRequest && String(buffer: typo.body).contains("is not a door of this site"))
            #expect(try await harness.under.store.retiredDoors() == ["front-door", "side-door"])
            let changes = try await harness.under.auditRecords().filter { ["door_rotate", "door_retire"].contains($0["action"]) }
            #expect(
                changes.map { "\($0["action"]!) \($0["terminal_id"]!) \($0["admin"]!)" } == [
                    "door_rotate front-door alice", "door_retire front-door alice", "door_retire side-door alice",
                ])
        }
    }
}
