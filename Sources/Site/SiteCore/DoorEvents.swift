import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage

/// One journal record a terminal forwarded (`POST /v1/events`), as the store keeps it: its
/// id (the deduplication key), door, type, time, sequence number and the record's JSON as
/// sent (never a PIN or code: the terminal's journal has none).
public struct DoorEvent: Sendable, Equatable {
    public let id: String
    public let terminalID: String
    public let type: String
    public let time: Date
    public let sequence: Int
    public let json: String

    public init(id: String, terminalID: String, type: String, time: Date, sequence: Int, json: String) {
        self.id = id
        self.terminalID = terminalID
        self.type = type
        self.time = time
        self.sequence = sequence
        self.json = json
    }
}

/// A batch of forwarded journal records (the terminals' events format, `docs/openapi.yaml`):
/// a JSON array of 1 to 50 Standard Webhooks envelopes `{type, timestamp, data}`, all from
/// one terminal. An error names the record and the field.
public enum DoorEventBatch {
    public static let maxRecords = 50

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// How far ahead of the site server's clock a record's time may be: the skew a
    /// signature's timestamp may have.
    public static let allowedSkew: TimeInterval = 300
    /// The most bytes one string field of a record may hold, and one record in all.
    public static let maxFieldBytes = 1_024
    public static let maxRecordBytes = 4_096

    /// The records of `body`. With `now`, a record dated more than ``allowedSkew`` after it,
    /// or older than `keepDays` before it (retention would delete it at once), is refused:
    /// one record dated 2099 would otherwise pin the door's view.
    public static func decode(_ body: [UInt8], now: Date? = nil, keepDays: Int = 365) throws -> [DoorEvent] {
        try decode(StrictJSON.parse(body), now: now, keepDays: keepDays)
    }

    /// The records of a body the one strict pass read (``StrictJSON``).
    public static func decode(_ parsed: Result<StrictJSON.Value, StrictJSON.Problem>, now: Date? = nil, keepDays: Int = 365) throws -> [DoorEvent] {
        let items: [StrictJSON.Value]
        switch parsed {
        case .failure(let problem): throw Invalid(description: "ambiguous or malformed JSON: \(problem)")
        case .success(.array(let array)): items = array
        case .success: throw Invalid(description: "the body must be a JSON array of event envelopes")
        }
        guard (1...maxRecords).contains(items.count) else { throw Invalid(description: "a batch holds 1 to \(maxRecords) records, not \(items.count)") }
        var events: [DoorEvent] = []
        for (index, item) in items.enumerated() {
            let fail = { (why: String) in Invalid(description: "record \(index + 1): \(why)") }
            guard let envelope = StrictJSON.Fields(item), let dataValue = envelope.object["data"], let data = StrictJSON.Fields(dataValue) else {
                throw fail("must be an object with a data object")
            }
            guard let id = data.string("id"), (1...64).contains(id.utf8.count), Identifier.isValid(id) else {
                throw fail("data.id must be 1-64 of letters, digits, '.', '_' or '-' (the journal's UUID)")
            }
            guard let terminal = data.string("terminal_id"), Identifier.isValid(terminal) else { throw fail("data.terminal_id must be a terminal_id") }
            guard let type = data.string("type"), Identifier.isValid(type) else { throw fail("data.type must be a record type such as attempt") }
            guard let text = data.string("time"), let time = UTCTimestamp.parse(text) else {
                throw fail("data.time must be an RFC 3339 date-time")
            }
            if let now {
                guard time <= now.addingTimeInterval(allowedSkew) else {
                    throw fail(
                        "data.time \(text) is more than \(Int(allowedSkew / 60)) minutes ahead of the site server's clock (\(UTCTimestamp.rfc3339(now))); check the door's clock (NTP)"
                    )
                }
                guard time >= now.addingTimeInterval(-Double(keepDays) * 86_400) else {
                    throw fail("data.time \(text) is older than server.events.keep_days (\(keepDays) days)")
                }
            }
            guard let sequence = data.integer("seq").flatMap({ Int(exactly: $0) }) else { throw fail("data.seq must be an integer") }
            for key in data.object.keys.sorted() {
                switch data.object[key] {
                case .string(let bytes)? where bytes.count > maxFieldBytes: throw fail("data.\(key) is longer than \(maxFieldBytes) bytes")
                case .array?, .object?: throw fail("data.\(key) must be a string, number or boolean (records are flat)")
                default: break
                }
            }
            let json = dataValue.sortedJSON
            guard json.utf8.count <= maxRecordBytes else { throw fail("the record is longer than \(maxRecordBytes) bytes") }
            // The envelope as docs/openapi.yaml has it (the server keeps only `data`).
            guard envelope.string("type") != nil else { throw fail("type must be a string such as kioskpad.\(type)") }
            guard let stamp = envelope.string("timestamp"), UTCTimestamp.parse(stamp) != nil else {
                throw fail("timestamp must be an RFC 3339 date-time")
            }
            events.append(DoorEvent(id: id, terminalID: terminal, type: type, time: time, sequence: sequence, json: json))
        }
        guard Set(events.map(\.terminalID)).count == 1 else {
            throw Invalid(description: "a batch comes from one terminal: its records name several terminal_ids")
        }
        return events
    }
}

/// `POST /v1/events`: checks a batch's signature (the door's own secret, else the site
/// secret, as for `/verify`), decodes it and stores its records once each (a record id seen
/// before is skipped, so a retried batch is confirmed again and stored once). The batch's
/// `webhook-id` is not put in the replay cache: a retry keeps its id by design. Answers a
/// ``DoorRequestOutcome``; `SiteHTTP` makes it HTTP.
public struct DoorEventIntake: Sendable {
    /// How long an answer of 429 (over the quota) is held before it is sent. A door honours
    /// `Retry-After` and is not slowed; one that ignores it is answered once a second per
    /// connection (at most `max_connections_per_source` a second from one address), not as
    /// fast as it can send: its flood then costs the server almost nothing but descriptors.
    public static let overQuotaPace: Duration = .seconds(1)

    private let keys: DoorKeys
    private let clock: @Sendable () -> Date
    private let keepDays: Int
    public let quota: EventQuota
    /// Where a door's `remote_command` record settles its command's result (the console shows it).
    private let commandResults: (any DoorCommandStore)?

    /// `keepDays`: `server.events.keep_days`; an older record is refused. `quota`: each
    /// door's records per minute and bytes per day.
    public init(
        store: any VerifierStore, siteSecret: WebhookSecret?, keepDays: Int = 365, quota: EventQuota = EventQuota(),
        commandResults: (any DoorCommandStore)? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        keys = DoorKeys(store: store, siteSecret: siteSecret)
        self.commandResults = commandResults
        self.keepDays = keepDays
        self.quota = quota
        self.clock = clock
    }

    /// A batch admitted (``gate(_:)``) and stored (``store(_:)``).
    public func handle(_ request: ReferenceVerifier.Incoming) async -> DoorRequestOutcome {
        switch await gate(request) {
        case .failure(let refused): return refused.outcome
        case .success(let admitted): return await store(admitted)
        }
    }

    /// The gate every door endpoint shares (an unsigned batch is let through under
    /// `allow_unsigned`; a batch's `webhook-id` is not claimed: a retry keeps it by design);
    /// then a door refused and still within its Retry-After is answered before its batch is decoded.
    public func gate(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorRequestOutcome.Refused> {
        let rules = DoorGate.Rules(unsigned: nil, maxBody: nil, claimsWebhookID: false, inBody: DoorGate.batchTerminal)
        let admission = await DoorGate.admit(request, rules: rules, keys: keys, now: clock())
        if case .success(let admitted) = admission, let terminal = admitted.terminal, let over = quota.isOver(door: terminal, now: clock()) {
            return .failure(.init(Self.overQuota(terminal, over)))
        }
        return admission
    }

    /// The batch held to its schema, then within the door's quota, stored once per record.
    public func store(_ admitted: AdmittedDoorRequest) async -> DoorRequestOutcome {
        let terminal = admitted.terminal
        let events: [DoorEvent]
        do {
            events = try DoorEventBatch.decode(admitted.body, now: clock(), keepDays: keepDays)
        } catch {
            return .malformed("\(error)")
        }
        if let terminal, let named = events.first?.terminalID, named != terminal {
            return .malformed(ClaimedTerminal.mismatch(body: named, claimed: terminal))
        }
        let now = clock()
        if let door = events.first?.terminalID,
            let over = quota.admit(door: door, records: events.count, bytes: events.reduce(0) { $0 + $1.json.utf8.count }, now: now)
        {
            // One record per door and window, so the Doors page shows it ("event_quota").
            if over.first { _ = try? await keys.store.storeEvents([Self.quotaRecord(door: door, over: over, now: now)]) }
            return Self.overQuota(door, over)
        }
        do {
            let stored = try await keys.store.storeEvents(events)
            await settleCommands(events)
            return .done("{\"received\":\(events.count),\"stored\":\(stored)}")
        } catch {
            return .unavailable
        }
    }

    /// Each `remote_command` record's result kept with its command (`unlocked`, `locked`,
    /// `refused: lockdown`, ...); the record itself is stored as any other.
    private func settleCommands(_ events: [DoorEvent]) async {
        guard let commandResults else { return }
        for event in events where event.type == DoorRecordType.remoteCommand.rawValue {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(event.json.utf8))) as? [String: Any],
                let id = (object["command"] as? NSNumber)?.int64Value, id > 0, let result = object["result"] as? String
            else { continue }
            let said = (object["reason"] as? String).map { "\(result): \($0)" } ?? result
            try? await commandResults.recordDoorCommandResult(terminal: event.terminalID, id: id, result: String(said.prefix(64)))
        }
    }

    /// Answered before the body is read: a door that names itself in the `kioskpad-terminal`
    /// header and is over its quota in this window (nil: read the body and decide).
    public func overQuotaBeforeBody(terminal: String?) -> DoorRequestOutcome? {
        guard let terminal, Identifier.isValid(terminal), let over = quota.isOver(door: terminal, now: clock()) else { return nil }
        return Self.overQuota(terminal, over)
    }

    private static func overQuota(_ door: String, _ over: EventQuota.Over) -> DoorRequestOutcome {
        .overQuota(door: door, limit: over.limit, retryAfter: over.retryAfter)
    }

    /// The server's own record that `door` went over a quota in a window.
    static func quotaRecord(door: String, over: EventQuota.Over, now: Date) -> DoorEvent {
        let id = "quota-\(over.limit)-\(Int(over.window.timeIntervalSince1970))-\(door)".prefix(64)
        let time = UTCTimestamp.rfc3339(now)
        let json = "{\"id\":\"\(id)\",\"limit\":\"\(over.limit)\",\"seq\":0,\"terminal_id\":\"\(door)\",\"time\":\"\(time)\",\"type\":\"event_quota_exceeded\"}"
        return DoorEvent(id: String(id), terminalID: door, type: SiteRecordType.eventQuotaExceeded.rawValue, time: now, sequence: 0, json: json)
    }
}
