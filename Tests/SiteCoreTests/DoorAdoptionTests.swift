import Crypto
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Doors adopted with the code on their display, over each real store: the code's tag finds
/// the waiting door and the delivery opens only with the door's key and code; a mistyped code
/// takes the given secret back and counts; two waiting doors with one tag are both refused;
/// the waiting list is bounded, per address and in all; a name that is a door's already is
/// refused before anything is stored; each adoption is one `door_adopt` audit record.
@Suite("Doors adopted from the site, on SQLite and PostgreSQL", .heavy)
struct DoorAdoptionTests {
    let clock = TestWallClock()

    func announce(_ store: StoreUnderTest, address: String = "192.0.2.10", key: Curve25519.KeyAgreement.PrivateKey = .init(), nonce: Data? = nil)
        async throws -> (WaitingDoor, PairingDoorUnderTest)
    {
        let nonce = nonce ?? Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let unpaired = try PairingDoorUnderTest(key: key)
        let door = unpaired.waiting(nonce: nonce, address: address, hardware: "wiegand keypad", announced: clock.now)
        try await store.administration.announceDoor(door, now: clock.now)
        return (door, unpaired)
    }

    func adoption(_ store: StoreUnderTest) -> DoorAdoption {
        DoorAdoption(
            pairing: store.administration, changes: AdministratorChanges(store: store.store, by: .console("ops", role: .owner, from: "test"), now: clock.read),
            replicaPublicKey: "ed25519:AAAA")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theTypedCodeSealsTheDoorsSecretToItAndAMistypeTakesItBack(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let (door, unpaired) = try await announce(store)
        let code = unpaired.code(nonce: door.nonce)
        // A mistyped secret digit: sealed (the site cannot tell), the door cannot open it.
        var digits = Array(code.secret)
        digits[0] = digits[0] == "9" ? "8" : "9"
        try await adoption(store).adopt(code: PairingCode(tag: code.tag, secret: String(digits)), terminalID: "front-door", now: clock.now)
        let (_, wrong) = try #require(try await store.administration.pairing(id: door.id, now: clock.now))
        #expect(throws: PairingSeal.OpenError.wrongCode) {
            try unpaired.open(try #require(wrong), announcement: door.id, nonce: door.nonce)
        }
        #expect(try await store.store.doorKey(terminal: "front-door").ownSecret != nil)
        #expect(try await store.administration.pairingNotOpened(id: door.id) == 1)
        #expect(try await store.store.doorKey(terminal: "front-door").ownSecret == nil, "the secret given with a delivery that did not open is taken back")
        // The right code: the door opens its name, its secret and the replica key.
        try await adoption(store).adopt(code: code, terminalID: "front-door", now: clock.now)
        let (delivered, sealed) = try #require(try await store.administration.pairing(id: door.id, now: clock.now))
        #expect(delivered.state == .delivered && delivered.terminalID == "front-door")
        let bundle = try JSONDecoder().decode(
            PairingBundle.self, from: try unpaired.open(try #require(sealed), announcement: door.id, nonce: door.nonce))
        #expect(bundle.terminalID == "front-door" && bundle.replicaPublicKey == "ed25519:AAAA")
        #expect(try await store.store.doorKey(terminal: "front-door").ownSecret?.text == bundle.secret)
        try await store.administration.pairingOpened(id: door.id)
        #expect(try await store.administration.waitingDoors(now: clock.now).isEmpty)
        let audits = try await store.auditRecords().filter { $0["action"] == "door_adopt" }
        #expect(audits.count == 2 && audits.allSatisfy { $0["terminal_id"] == "front-door" && $0["pairing_tag"] == code.tag && $0["admin"] == "ops" })
        #expect(!audits.contains { $0.values.contains { $0.contains(code.secret) || $0.contains(bundle.secret) } })
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func threeDeliveriesThatDoNotOpenEndTheAnnouncement(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let (door, _) = try await announce(store)
        let guess = PairingCode(tag: door.tag, secret: "00000000")
        for expected in 1...DoorPairing.maxFailures {
            try await adoption(store).adopt(code: guess, terminalID: "front-door", now: clock.now)
            #expect(try await store.administration.pairingNotOpened(id: door.id) == expected)
            #expect(try await store.store.doorKey(terminal: "front-door").ownSecret == nil)
        }
        #expect(try await store.administration.pairing(id: door.id, now: clock.now) == nil, "gone after \(DoorPairing.maxFailures) guesses")
        await #expect(throws: PairingRefusal.self) { try await adoption(store).adopt(code: guess, terminalID: "front-door", now: clock.now) }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDeliveryNeverConfirmedLeavesNoSecretAndNoNameOnceItsTimeRanOut(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let (door, unpaired) = try await announce(store)
        try await adoption(store).adopt(code: unpaired.code(nonce: door.nonce), terminalID: "front-door", now: clock.now)
        #expect(try await store.store.doorKey(terminal: "front-door").ownSecret != nil)
        // The door never says it opened the delivery; its time runs out, and the next
        // announcement (or the hourly sweep) takes the secret and the name back (issue 78).
        clock.advance(DoorPairing.waitingSeconds + 1)
        let (next, nextDoor) = try await announce(store, address: "192.0.2.12")
        #expect(try await store.store.doorKey(terminal: "front-door").ownSecret == nil, "no live secret is left")
        #expect(try await store.administration.pairing(id: door.id, now: clock.now) == nil)
        try await adoption(store).adopt(code: nextDoor.code(nonce: next.nonce), terminalID: "front-door", now: clock.now)
        #expect(try await store.store.doorKey(terminal: "front-door").ownSecret != nil, "the name is free again")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func refusalsNameWhatIsWrongAndStoreNothing(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        // Two doors whose codes share a tag (one ground to match the other): neither is adopted.
        let nonce = Data(repeating: 7, count: 16)
        let first = try await announce(store, nonce: nonce)
        // A rogue door with a key of its own whose nonce it ground until the tag matched (its
        // tag stands in for that grinding here); the same key again would be refused (409).
        let twin = try PairingDoorUnderTest().waiting(nonce: nonce, tag: first.0.tag, address: "192.0.2.66", announced: clock.now)
        try await store.administration.announceDoor(twin, now: clock.now)
        #expect(first.0.tag == twin.tag)
        let code = first.1.code(nonce: nonce)
        await #expect(throws: PairingRefusal.self) { try await adoption(store).adopt(code: code, terminalID: "front-door", now: clock.now) }
        #expect(try await store.store.doorKey(terminal: "front-door").ownSecret == nil)
        // No door with that tag; a name that is not an identifier; a name with a secret already.
        let (door, unpaired) = try await announce(store, address: "192.0.2.11")
        let other = PairingCode(tag: door.tag == "0000" ? "0001" : "0000", secret: "12345678")
        let noTag = await #expect(throws: PairingRefusal.self) { try await adoption(store).adopt(code: other, terminalID: "x", now: clock.now) }
        #expect(noTag?.description.hasPrefix("code: no door waiting shows a code starting") == true)
        let ownCode = unpaired.code(nonce: door.nonce)
        let badName = await #expect(throws: PairingRefusal.self) { try await adoption(store).adopt(code: ownCode, terminalID: "front door", now: clock.now) }
        #expect(badName?.description.hasPrefix("name: 'front door' must be") == true)
        try await store.administration.addDoor(terminalID: "back-door", secret: .generate())
        let taken = await #expect(throws: PairingRefusal.self) { try await adoption(store).adopt(code: ownCode, terminalID: "back-door", now: clock.now) }
        #expect(taken?.description.hasPrefix("name: door 'back-door' has a secret of its own already") == true)
        #expect(try await store.administration.waitingDoors(now: clock.now).first { $0.id == door.id }?.state == .waiting)
        #expect(try await store.auditRecords().filter { $0["action"] == "door_adopt" }.isEmpty)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aKeyWaitsOnceAndAnIPv6Slash64CountsAsOneAddress(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let (_, unpaired) = try await announce(store)
        let again = await #expect(throws: PairingRefusal.self) { try await announce(store, address: "192.0.2.99", key: unpaired.key) }
        #expect(again?.status == 409 && again?.description.hasPrefix("door_key: that key waits to be adopted already") == true)
        // Four from one /64, whatever the host part; the fifth is refused naming the /64.
        for host in 1...DoorPairing.maxWaitingPerAddress { _ = try await announce(store, address: "2001:db8:7:1::\(host)") }
        let sameNet = await #expect(throws: PairingRefusal.self) { try await announce(store, address: "2001:db8:7:1:ffff:1:2:3") }
        #expect(sameNet?.status == 429 && sameNet?.description.contains("from 2001:db8:7:1::/64 wait") == true, "\(String(describing: sameNet))")
        _ = try await announce(store, address: "2001:db8:7:2::1")
        #expect(DoorPairing.addressGroup("192.0.2.10") == "192.0.2.10" && DoorPairing.addressGroup("unknown") == "unknown")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theWaitingListIsBoundedAndRunsOut(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        for _ in 0..<DoorPairing.maxWaitingPerAddress { _ = try await announce(store, address: "192.0.2.20") }
        let perAddress = await #expect(throws: PairingRefusal.self) { try await announce(store, address: "192.0.2.20") }
        #expect(perAddress?.status == 429)
        for index in 0..<(DoorPairing.maxWaiting - DoorPairing.maxWaitingPerAddress) { _ = try await announce(store, address: "198.51.100.\(index)") }
        let all = await #expect(throws: PairingRefusal.self) { try await announce(store, address: "203.0.113.1") }
        #expect(all?.status == 429)
        #expect(try await store.administration.waitingDoors(now: clock.now).count == DoorPairing.maxWaiting)
        // Fifteen minutes on, every announcement ran out: none is listed, and new ones are taken.
        let later = clock.now.addingTimeInterval(DoorPairing.waitingSeconds + 1)
        #expect(try await store.administration.waitingDoors(now: later).isEmpty)
        let fresh = try PairingDoorUnderTest().waiting(id: "fresh", nonce: Data([1]), tag: "1234", address: "203.0.113.1", announced: later)
        try await store.administration.announceDoor(fresh, now: later)
        #expect(try await store.administration.waitingDoors(now: later).map(\.id) == ["fresh"])
    }
}
