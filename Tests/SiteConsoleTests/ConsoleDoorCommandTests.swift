import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// The Doors page's **Open a door from here**: an unlock with seconds and a reason is stored
/// for the door and listed (waiting, then taken), audited under the administrator; an unknown
/// door, a door in lockdown, bad seconds and a missing reason are refused with what is wrong.
@Suite("Site console: doors opened from the Doors page", .serialized)
struct ConsoleDoorCommandTests {
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func anUnlockSentFromTheDoorsPageIsStoredListedAndAudited(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await harness.under.administration.addDoor(terminalID: "front-door", secret: .generate())
            try await harness.under.administration.addDoor(terminalID: "side-door", secret: .generate())
            let browser = Browser(client)
            try await browser.logIn()
            let csrf = try await browser.csrf()
            let page = String(buffer: try await browser.get("/console/doors").body)
            #expect(page.contains("id=\"door-command\"") && page.contains("No door has been opened from here yet."))
            let sent = try await browser.post(
                "/console/doors/command", [("csrf", csrf), ("door", "front-door"), ("seconds", "15"), ("reason", "parcel <b>"), ("action", "unlock")])
            #expect(sent.status == .seeOther && sent.headers[.location] == "/console/doors?done=unlock-sent#commands-heading")
            let listed = String(buffer: try await browser.get("/console/doors?done=unlock-sent").body)
            #expect(listed.contains("Unlock sent"))
            #expect(listed.contains("<td>front-door</td><td>unlock</td><td>15</td><td>parcel &lt;b&gt;</td><td>alice</td>"), "\(listed)")
            #expect(listed.contains("<td class=\"delivered\">waiting</td>"))
            let stored = try #require(try await harness.under.administration.recentDoorCommands(terminal: "front-door", limit: 1).first)
            try await harness.under.administration.markDoorCommandsDelivered(terminal: "front-door", through: stored.id, at: harness.clock.now)
            try await harness.under.administration.recordDoorCommandResult(terminal: "front-door", id: stored.id, result: "unlocked")
            let taken = String(buffer: try await browser.get("/console/doors").body)
            #expect(!taken.contains("<td class=\"delivered\">waiting</td>") && taken.contains("<td class=\"result\">unlocked</td>"), "\(taken)")
            let audited = try await harness.under.auditRecords().filter { $0["action"] == "door_unlock" }
            #expect(audited.count == 1 && audited[0]["admin"] == "alice" && audited[0]["terminal_id"] == "front-door" && audited[0]["seconds"] == "15")

            let unknown = try await browser.post("/console/doors/command", [("csrf", csrf), ("door", "frnot-door"), ("reason", "x"), ("action", "unlock")])
            #expect(unknown.status == .badRequest && String(buffer: unknown.body).contains("is not a door of this site"))
            let seconds = try await browser.post(
                "/console/doors/command", [("csrf", csrf), ("door", "front-door"), ("seconds", "900"), ("reason", "x"), ("action", "unlock")])
            #expect(seconds.status == .badRequest && String(buffer: seconds.body).contains("seconds must be a whole number from 1 to 300"))
            let reason = try await browser.post("/console/doors/command", [("csrf", csrf), ("door", "front-door"), ("action", "unlock")])
            #expect(reason.status == .badRequest && String(buffer: reason.body).contains("reason: say why"))
            _ = try await harness.under.administration.setMode(.lockdown, door: "side-door", by: "alice", at: harness.clock.now)
            let lockdown = try await browser.post("/console/doors/command", [("csrf", csrf), ("door", "side-door"), ("reason", "x"), ("action", "unlock")])
            #expect(lockdown.status == .badRequest && String(buffer: lockdown.body).contains("lockdown"))
            let lock = try await browser.post("/console/doors/command", [("csrf", csrf), ("door", "side-door"), ("reason", "end"), ("action", "lock")])
            #expect(lock.status == .seeOther)
            #expect(try await harness.under.administration.recentDoorCommands(terminal: nil, limit: 10).map(\.action) == [.lock, .unlock])
        }
    }
}
