import DurableStorage
import Foundation
import KeypadCore
import KeypadVerifier

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

    /// The records of `body`. With `now`, a record dated more than ``allowedSkew`` after it,
    /// or older than `keepDays` before it (retention would delete it at once), is refused:
    /// one record dated 2099 would otherwise pin the door's view.
    public static func decode(_ body: [UInt8], now: Date? = nil, keepDays: Int = 365) throws -> [DoorEvent] {
        if let problem = DuplicateKeyCheck.firstProblem(in: body) { throw Invalid(description: "ambiguous or malformed JSON: \(problem)") }
        guard let items = try? JSONSerialization.jsonObject(with: Data(body)) as? [Any] else {
            throw Invalid(description: "the body must be a JSON array of event envelopes")
        }
        guard (1...maxRecords).contains(items.count) else { throw Invalid(description: "a batch holds 1 to \(maxRecords) records, not \(items.count)") }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        var events: [DoorEvent] = []
        for (index, item) in items.enumerated() {
            let fail = { (why: String) in Invalid(description: "record \(index + 1): \(why)") }
            guard let envelope = item as? [String: Any], let data = envelope["data"] as? [String: Any] else { throw fail("must be an object with a data object") }
            guard let id = data["id"] as? String, (1...64).contains(id.utf8.count), Identifier.isValid(id) else {
                throw fail("data.id must be 1-64 of letters, digits, '.', '_' or '-' (the journal's UUID)")
            }
            guard let terminal = data["terminal_id"] as? String, Identifier.isValid(terminal) else { throw fail("data.terminal_id must be a terminal_id") }
            guard let type = data["type"] as? String, Identifier.isValid(type) else { throw fail("data.type must be a record type such as attempt") }
            guard let text = data["time"] as? String, let time = formatter.date(from: text) ?? plain.date(from: text) else {
                throw fail("data.time must be an RFC 3339 date-time")
            }
            if let now {
                guard time <= now.addingTimeInterval(allowedSkew) else {
                    throw fail("data.time \(text) is more than \(Int(allowedSkew / 60)) minutes ahead of the site server's clock (\(UTCTimestamp.rfc3339(now))); check the door's clock (NTP)")
                }
                guard time >= now.addingTimeInterval(-Double(keepDays) * 86_400) else {
                    throw fail("data.time \(text) is older than server.events.keep_days (\(keepDays) days)")
                }
            }
            guard let sequence = data["seq"] as? Int else { throw fail("data.seq must be an integer") }
            guard let json = try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]) else { throw fail("data cannot be stored") }
            events.append(DoorEvent(id: id, terminalID: terminal, type: type, time: time, sequence: sequence, json: String(decoding: json, as: UTF8.self)))
        }
        guard Set(events.map(\.terminalID)).count == 1 else { throw Invalid(description: "a batch comes from one terminal: its records name several terminal_ids") }
        return events
    }
}

/// `POST /v1/events`: checks a batch's signature (the door's own secret, else the site
/// secret, as for `/verify`), decodes it and stores its records once each (a record id seen
/// before is skipped, so a retried batch is confirmed again and stored once). The batch's
/// `webhook-id` is not put in the replay cache: a retry keeps its id by design.
public struct DoorEventIntake: Sendable {
    /// What the terminal is answered: 200 delivered, 400 never again, 401 unsigned, 503 later.
    public struct Reply: Sendable, Equatable {
        public let status: Int
        public let body: String

        public init(status: Int, body: String) {
            self.status = status
            self.body = body
        }
    }

    private let store: any VerifierStore
    private let siteSecret: WebhookSecret?
    private let clock: @Sendable () -> Date
    private let keepDays: Int

    /// `keepDays`: `server.events.keep_days`; an older record is refused.
    public init(store: any VerifierStore, siteSecret: WebhookSecret?, keepDays: Int = 365, clock: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.siteSecret = siteSecret
        self.keepDays = keepDays
        self.clock = clock
    }

    public func handle(_ request: ReferenceVerifier.Incoming) async -> Reply {
        guard ReferenceVerifier.isJSON(request.contentType) else { return Self.reply(400, "content-type must be application/json") }
        let terminal = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [Any])?
            .compactMap { (($0 as? [String: Any])?["data"] as? [String: Any])?["terminal_id"] as? String }.first
        do {
            if case .refused(let why) = try await DoorSignature.check(request, terminal: terminal, store: store, siteSecret: siteSecret, now: clock()) {
                return Self.reply(401, why)
            }
        } catch {
            return Self.reply(503, "the database cannot be used now")
        }
        let events: [DoorEvent]
        do {
            events = try DoorEventBatch.decode(request.body, now: clock(), keepDays: keepDays)
        } catch {
            return Self.reply(400, "\(error)")
        }
        do {
            let stored = try await store.storeEvents(events)
            return Reply(status: 200, body: "{\"received\":\(events.count),\"stored\":\(stored)}")
        } catch {
            return Self.reply(503, "the database cannot be used now")
        }
    }

    private static func reply(_ status: Int, _ error: String) -> Reply {
        Reply(status: status, body: "{\"error\":\(VerificationRequestBody.jsonString(error))}")
    }
}
