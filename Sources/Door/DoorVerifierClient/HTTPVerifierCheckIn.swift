import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import NIOCore

/// What the site answered a door's check-in (`POST /v1/check-in`).
public struct CheckInAnswer: Sendable, Equatable {
    /// Settings as the site signed them with its replica key (base64 of the payload and of
    /// the Ed25519 signature over its bytes).
    public struct SignedSettings: Sendable, Equatable {
        public let payload: String
        public let signature: String
    }

    /// When to check in again (the site's `server.check_in_seconds`).
    public let interval: Duration
    /// The door's next secret sealed under its current one, while a rotation waits.
    public let sealedRotation: String?
    /// Settings for the door, when it runs another version than the site's.
    public let settings: SignedSettings?
    /// What the site says of its replica keys while it rotates them, and its signature (base64).
    public let replicaKey: (statement: ReplicaKeyStatement, signature: String)?

    public static func == (lhs: CheckInAnswer, rhs: CheckInAnswer) -> Bool {
        lhs.interval == rhs.interval && lhs.sealedRotation == rhs.sealedRotation && lhs.settings == rhs.settings
            && lhs.replicaKey?.statement == rhs.replicaKey?.statement && lhs.replicaKey?.signature == rhs.replicaKey?.signature
    }
}

/// What a door says of its settings at each check-in.
public struct CheckInReport: Sendable, Equatable {
    /// The settings version it runs (0: none from the site).
    public let running: Int64
    /// The version it refused last, and why (its config checker's words).
    public let refused: (version: Int64, reason: String)?
    /// The replica keys it trusts (`ed25519:...`), so the site knows what to tell it of a rotation.
    public let replicaKeys: [String]

    public init(running: Int64, refused: (version: Int64, reason: String)?, replicaKeys: [String] = []) {
        self.running = running
        self.refused = refused
        self.replicaKeys = replicaKeys
    }

    public static func == (lhs: CheckInReport, rhs: CheckInReport) -> Bool {
        lhs.running == rhs.running && lhs.refused?.version == rhs.refused?.version && lhs.refused?.reason == rhs.refused?.reason
            && lhs.replicaKeys == rhs.replicaKeys
    }

    var json: String {
        var text = "\"settings_version\":\(running)"
        if !replicaKeys.isEmpty {
            text += ",\"replica_keys\":[\(replicaKeys.map(VerificationRequestBody.jsonString).joined(separator: ","))]"
        }
        if let refused {
            let reason = String(refused.reason.utf8.prefix(900)) ?? ""
            text += ",\"settings_refused\":{\"reason\":\(VerificationRequestBody.jsonString(reason)),\"version\":\(refused.version)}"
        }
        return text
    }
}

extension HTTPVerifier {
    /// Why a check-in got no answer; the text names the status or the problem, never a secret.
    public struct CheckInFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The check-in endpoint beside `/verify` at each of the site's addresses.
    static let checkInPath = "/v1/check-in"

    /// Asks the site, signed with the secret in use now, whether it has a rotation or settings
    /// for `terminalID`, telling it `report`; throws ``CheckInFailure`` for anything but a 200
    /// with the answer's body.
    public func checkIn(terminalID: String, report: CheckInReport = CheckInReport(running: 0, refused: nil)) async throws -> CheckInAnswer {
        let body = Array("{\(report.json),\"terminal_id\":\(VerificationRequestBody.jsonString(terminalID))}".utf8)
        let request = SignedJSONRequest.make(
            url: addresses.url(0, path: Self.checkInPath), body: body, id: UUID().uuidString.lowercased(), terminal: terminalID,
            secret: secret, bearerToken: settings.bearerToken)
        let response = try await firstAnswer(request, path: Self.checkInPath, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: settings.maxResponseBytes)
        guard response.status == .ok else {
            throw CheckInFailure(description: "the site answered \(response.status.code) \(String(buffer: buffer).prefix(200))")
        }
        guard let fields = (try? StrictJSON.parse(Array(buffer: buffer)).get()).flatMap(StrictJSON.Fields.init),
            let seconds = fields.integer("check_in_s"), (1...3_600).contains(seconds)
        else { throw CheckInFailure(description: "the site's answer has no check_in_s from 1 to 3600") }
        var sealed: String?
        if fields.has("rotation") {
            guard let text = fields.object["rotation"].flatMap(StrictJSON.Fields.init)?.string("sealed") else {
                throw CheckInFailure(description: "the site's rotation has no sealed secret")
            }
            sealed = text
        }
        var settings: CheckInAnswer.SignedSettings?
        if fields.has("settings") {
            guard let signed = fields.object["settings"].flatMap(StrictJSON.Fields.init), let payload = signed.string("payload"),
                let signature = signed.string("signature")
            else { throw CheckInFailure(description: "the site's settings have no payload and signature") }
            settings = CheckInAnswer.SignedSettings(payload: payload, signature: signature)
        }
        var replicaKey: (statement: ReplicaKeyStatement, signature: String)?
        if fields.has("replica_key") {
            guard let object = fields.object["replica_key"].flatMap(StrictJSON.Fields.init), let signature = object.string("signature"),
                let statement = Self.replicaKeyStatement(object)
            else { throw CheckInFailure(description: "the site's replica_key has no next or current key with its signature") }
            replicaKey = (statement, signature)
        }
        return CheckInAnswer(interval: .seconds(Int(seconds)), sealedRotation: sealed, settings: settings, replicaKey: replicaKey)
    }

    /// `{"next": KEY}` or `{"current": KEY}`, the key as `ed25519:BASE64`.
    static func replicaKeyStatement(_ object: StrictJSON.Fields) -> ReplicaKeyStatement? {
        if let text = object.string("next"), let key = try? ReplicaPublicKey(parsing: text) { return .next(key) }
        if let text = object.string("current"), let key = try? ReplicaPublicKey(parsing: text) { return .current(key) }
        return nil
    }
}
