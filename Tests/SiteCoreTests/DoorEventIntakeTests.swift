import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// `POST /v1/events` decided over each real store: signed batches stored once per record
/// id, refusals that name the record and field, a door's own secret, and retention.
@Suite("Door events in, on SQLite and PostgreSQL", .heavy)
struct DoorEventIntakeTests {
    let siteSecret = WebhookSecret.generate()
    let clock = TestWallClock()

    /// A journal record as the terminal writes it.
    static func record(
        _ id: String = UUID().uuidString, terminal: String = "front-door", type: String = "attempt", time: String = "2027-01-15T07:59:58.125Z", seq: Int = 1
    ) -> String {
        "{\"seq\":\(seq),\"id\":\"\(id)\",\"time\":\"\(time)\",\"type\":\"\(type)\",\"terminal_id\":\"\(terminal)\",\"decision\":\"granted\",\"user\":\"alice\"}"
    }

    /// One record in its Standard Webhooks envelope, as a door sends it.
    static func envelope(_ record: String) -> String {
        "{\"type\":\"kioskpad.attempt\",\"timestamp\":\"2027-01-15T07:59:58Z\",\"data\":\(record)}"
    }

    /// Records in envelopes, signed with `secret` (default the site's), from a door naming
    /// itself `terminal` in the `kioskpad-terminal` header (nil: an older door, without it).
    func batch(_ records: [String], secret: WebhookSecret? = nil, sign: Bool = true, terminal: String? = nil) -> ReferenceVerifier.Incoming {
        let body = Array(("[" + records.map(Self.envelope).joined(separator: ",") + "]").utf8)
        let id = "\(UUID().uuidString).\(records.count)"
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: sign ? WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret ?? siteSecret) : nil, body: body,
            terminal: terminal)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aBatchIsStoredOnceAndARetryIsConfirmedAgain(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let intake = DoorEventIntake(store: store.store, siteSecret: siteSecret, clock: clock.read)
        let records = [Self.record(seq: 1), Self.record(type: "door_opened", seq: 2)]
        #expect(await intake.handle(batch(records)) == .done(json: Array("{\"received\":2,\"stored\":2}".utf8)))
        #expect(await intake.handle(batch(records)) == .done(json: Array("{\"received\":2,\"stored\":0}".utf8)))
        #expect(await intake.handle(batch(records + [Self.record(seq: 3)])).text == "{\"received\":3,\"stored\":1}")
        #expect(await intake.handle(batch(records, sign: false)).result == "unauthenticated")
        // Retention: the records are from 2027-01-15 07:59; a cutoff after them deletes them all.
        #expect(try await store.store.pruneEvents(before: Date(timeIntervalSince1970: 1_700_000_000), after: .distantFuture) == 0)
        #expect(try await store.store.pruneEvents(before: clock.now, after: .distantFuture) == 3)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDoorWithItsOwnSecretMustSignItsEventsWithItWithOrWithoutTheHeader(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let doorSecret = WebhookSecret.generate()
        try await store.administration.addDoor(terminalID: "front-door", secret: doorSecret)
        let intake = DoorEventIntake(store: store.store, siteSecret: siteSecret, clock: clock.read)
        #expect(await intake.handle(batch([Self.record()])).result == "unauthenticated")
        #expect(await intake.handle(batch([Self.record()], secret: doorSecret)).result == "ok")
        #expect(await intake.handle(batch([Self.record(terminal: "back-door")], secret: doorSecret)).result == "unauthenticated")
        // A door naming itself in the kioskpad-terminal header, as doors of this release do.
        #expect(await intake.handle(batch([Self.record()], secret: doorSecret, terminal: "front-door")).result == "ok")
        // The header picks the key: the site secret is refused for a door with its own.
        #expect(await intake.handle(batch([Self.record()], terminal: "front-door")).result == "unauthenticated")
        // Signed by a door for records naming another: refused, whoever signed.
        let other = await intake.handle(batch([Self.record(terminal: "back-door")], secret: doorSecret, terminal: "front-door"))
        #expect(other == .refused(.malformed, reason: "the body names terminal_id back-door, the request claimed front-door"))
        #expect(await intake.handle(batch([Self.record(terminal: "back-door")], terminal: "back-door")).result == "ok", "the site secret's door")
        // A look-alike in the header is refused before any key is chosen.
        let lookAlike = await intake.handle(batch([Self.record()], secret: doorSecret, terminal: "front-door\u{200B}"))
        #expect(lookAlike.result == "malformed" && lookAlike.text.contains("kioskpad-terminal must be a terminal_id"), "\(lookAlike)")
    }

    @Test func aDoorOverItsQuotaThatNamesItselfIsAnsweredBeforeItsBodyIsRead() async throws {
        let store = try await StoreUnderTest.make(.sqlite)
        defer { Task { await store.destroy() } }
        let intake = DoorEventIntake(
            store: store.store, siteSecret: siteSecret, quota: EventQuota(limits: .init(recordsPerMinute: 10)), clock: clock.read)
        #expect(intake.overQuotaBeforeBody(terminal: "front-door") == nil, "not over yet")
        #expect(intake.quota.admit(door: "front-door", records: 50, bytes: 100, now: clock.now) == nil, "a full batch: the burst")
        #expect(intake.quota.admit(door: "front-door", records: 10, bytes: 100, now: clock.now)?.retryAfter == 60, "10 records a minute")
        let early = try #require(intake.overQuotaBeforeBody(terminal: "front-door"))
        #expect(early.result == "over_quota" && early.retryAfter == 60)
        #expect(intake.overQuotaBeforeBody(terminal: "back-door") == nil, "each door its own")
        #expect(intake.overQuotaBeforeBody(terminal: nil) == nil, "an older door: decided after its body")
        #expect(intake.overQuotaBeforeBody(terminal: "front door") == nil, "not a terminal_id: refused later, with a reason")
    }

    @Test(arguments: [
        ("{}", "the body must be a JSON array of event envelopes"),
        ("[]", "a batch holds 1 to 50 records, not 0"),
        ("[{\"data\":{\"seq\":1,\"time\":\"2027-01-15T07:59:58Z\",\"type\":\"attempt\",\"terminal_id\":\"d\"}}]", "record 1: data.id must be"),
        (
            "[\(DoorEventIntakeTests.envelope(DoorEventIntakeTests.record())),{\"data\":\(DoorEventIntakeTests.record(time: "yesterday"))}]",
            "record 2: data.time must be an RFC 3339 date-time"
        ),
        (
            "[\(DoorEventIntakeTests.envelope(DoorEventIntakeTests.record())),\(DoorEventIntakeTests.envelope(DoorEventIntakeTests.record(terminal: "other")))]",
            "a batch comes from one terminal"
        ),
        ("[{\"timestamp\":\"2027-01-15T07:59:58Z\",\"data\":\(DoorEventIntakeTests.record())}]", "record 1: type must be a string such as kioskpad.attempt"),
        (
            "[{\"type\":\"kioskpad.attempt\",\"timestamp\":\"soon\",\"data\":\(DoorEventIntakeTests.record())}]",
            "record 1: timestamp must be an RFC 3339 date-time"
        ),
        (
            "[{\"data\":{\"seq\":false,\"id\":\"r1\",\"time\":\"2027-01-15T07:59:58Z\",\"type\":\"attempt\",\"terminal_id\":\"d\"}}]",
            "record 1: data.seq must be an integer"
        ),
        ("[{\"data\":{\"id\":\"a\",\"id\":\"b\"}}]", "ambiguous or malformed JSON"),
    ])
    func aBadBatchIsRefusedForGoodNamingTheRecordAndField(body: String, message: String) {
        #expect {
            _ = try DoorEventBatch.decode(Array(body.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRecordDatedInTheFutureOrPastRetentionIsRefusedNamingTheRecordAndField(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let intake = DoorEventIntake(store: store.store, siteSecret: siteSecret, keepDays: 30, clock: clock.read)
        // The clock reads 2027-01-15T08:00:00Z; 5 minutes of skew are allowed.
        let ahead = await intake.handle(batch([Self.record(seq: 1), Self.record(type: "status", time: "2099-01-01T00:00:00Z", seq: 2)]))
        #expect(ahead.result == "malformed" && ahead.text.contains("record 2: data.time 2099-01-01T00:00:00Z is more than 5 minutes ahead"), "\(ahead)")
        let old = await intake.handle(batch([Self.record(time: "2026-12-01T00:00:00Z")]))
        #expect(
            old.result == "malformed" && old.text.contains("record 1: data.time 2026-12-01T00:00:00Z is older than server.events.keep_days (30 days)"), "\(old)"
        )
        #expect(await intake.handle(batch([Self.record(time: "2027-01-15T08:04:00Z")])).result == "ok", "within the skew")
        #expect(try await store.store.recentEvents(perTerminal: 10).first?.newestFirst.count == 1, "nothing of a refused batch is stored")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func retentionRemovesAFutureDatedRecordAnOlderServerStoredSoARealAlarmShows(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        // As a server before this check stored it: a status record dated 2099.
        let pinned = DoorEvent(
            id: "pinned", terminalID: "front-door", type: "status", time: Date(timeIntervalSince1970: 4_070_908_800), sequence: 1,
            json: Self.record("pinned", type: "status", time: "2099-01-01T00:00:00Z", seq: 1))
        _ = try await store.store.storeEvents([pinned])
        let intake = DoorEventIntake(store: store.store, siteSecret: siteSecret, clock: clock.read)
        #expect(await intake.handle(batch([Self.record(type: "tamper", seq: 2)])).result == "ok")
        #expect(try await store.store.recentEvents(perTerminal: 1).first?.newestFirst.first?.type == "status", "pinned by the 2099 record")
        let removed = try await store.store.pruneEvents(
            before: clock.now.addingTimeInterval(-365 * 86_400), after: clock.now.addingTimeInterval(DoorEventBatch.allowedSkew))
        #expect(removed == 1)
        #expect(try await store.store.recentEvents(perTerminal: 1).first?.newestFirst.first?.type == "tamper")
    }

    @Test func aDoorsRecordsAreARateWithASmallBurstAndItsBytesADailyLimit() {
        let quota = EventQuota(limits: .init(recordsPerMinute: 600, bytesPerDay: 200_000))
        #expect(quota.limits.burst == 60, "six seconds' worth")
        let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
        #expect(quota.admit(door: "a", records: 50, bytes: 1_000, now: start) == nil)
        let over = quota.admit(door: "a", records: 50, bytes: 1_000, now: start.addingTimeInterval(1))
        #expect(over?.limit == "records_per_minute" && over?.retryAfter == 3 && over?.first == true, "20 of 50 after a second: 3 s more")
        #expect(quota.isOver(door: "a", now: start.addingTimeInterval(2.5))?.retryAfter == 2, "answered before its body until then")
        #expect(quota.isOver(door: "a", now: start.addingTimeInterval(4)) == nil)
        #expect(quota.admit(door: "b", records: 50, bytes: 1_000, now: start.addingTimeInterval(1)) == nil, "each door its own")
        #expect(quota.admit(door: "a", records: 50, bytes: 1_000, now: start.addingTimeInterval(4)) == nil, "filled again")
        #expect(quota.admit(door: "a", records: 50, bytes: 1_000, now: start.addingTimeInterval(5))?.first == false, "once per minute")
        // A door sending a batch every 100 ms for two minutes: the rate, not the minute's 600 at once.
        let flood = EventQuota(limits: .init(recordsPerMinute: 600, bytesPerDay: 100_000_000))
        var stored = [Int](repeating: 0, count: 120)
        for tenth in 0..<1_200 where flood.admit(door: "f", records: 50, bytes: 1_000, now: start.addingTimeInterval(Double(tenth) / 10)) == nil {
            stored[tenth / 10] += 50
        }
        #expect(stored.max() == 50, "one batch in any second, never a minute's 600 at once: \(stored)")
        #expect((1_200...1_260).contains(stored.reduce(0, +)), "600 a minute and the burst: \(stored.reduce(0, +))")
        let day = quota.admit(door: "c", records: 1, bytes: 200_001, now: start.addingTimeInterval(120))
        #expect(day?.limit == "bytes_per_day" && day?.retryAfter == 16 * 3_600 - 120, "until midnight UTC")
        #expect(quota.isOver(door: "c", now: start.addingTimeInterval(3_600))?.limit == "bytes_per_day")
        #expect(quota.admit(door: "c", records: 1, bytes: 8_000, now: start.addingTimeInterval(86_400)) == nil, "a new day")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDoorOverItsQuotaIsAnswered429OnceRecordedAndShownOnItsView(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let intake = DoorEventIntake(store: store.store, siteSecret: siteSecret, quota: EventQuota(limits: .init(recordsPerMinute: 50)), clock: clock.read)
        let full = (1...50).map { Self.record(seq: $0) }
        #expect(await intake.handle(batch(full)).result == "ok")
        let over = await intake.handle(batch([Self.record(seq: 51)]))
        // 50 a minute: a record every 1.2 s.
        #expect(over == .overQuota(door: "front-door", limit: "records_per_minute", retryAfter: 2), "\(over)")
        #expect(await intake.handle(batch([Self.record(seq: 52)])).result == "over_quota")
        let newest = try #require(try await store.store.recentEvents(perTerminal: 100).first?.newestFirst)
        #expect(newest.count == 51 && newest.filter { $0.type == "event_quota_exceeded" }.count == 1, "50 records and one quota record")
        let view = try #require(DoorView.fold(terminal: "front-door", newestFirst: newest, now: clock.now, silentAfter: 900))
        #expect(view.alerts.contains("event_quota"))
        clock.advance(60)
        #expect(await intake.handle(batch([Self.record(time: "2027-01-15T08:01:00Z", seq: 53)])).result == "ok", "the next minute")
    }

    @Test(arguments: [
        (#""detail":"\#(String(repeating: "x", count: 1_025))""#, "record 1: data.detail is longer than 1024 bytes"),
        (#""detail":{"nested":true}"#, "record 1: data.detail must be a string, number or boolean"),
        ((1...5).map { #""f\#($0)":"\#(String(repeating: "y", count: 1_000))""# }.joined(separator: ","), "record 1: the record is longer than 4096 bytes"),
    ])
    func freeFormFieldsAreBounded(extra: String, message: String) {
        let record = "{\"seq\":1,\"id\":\"r1\",\"time\":\"2027-01-15T07:59:58Z\",\"type\":\"fault\",\"terminal_id\":\"front-door\",\(extra)}"
        #expect {
            _ = try DoorEventBatch.decode(Array("[{\"data\":\(record)}]".utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}
