import Foundation
import KioskPadCore

/// What a webhook message is about, by the `type` its body carries (docs/api.md, "Webhooks").
/// A subscription names the types it wants, or every type.
public enum WebhookEventType: String, Sendable, CaseIterable, Comparable {
    /// The site decided an attempt at a door (`/verify`): granted or denied, who, why.
    case accessDecided = "access.decided"
    /// A door reported an alert: forced or held open, tamper, a keypad or reader failing, a
    /// door over its event quota; or the site noticed a door gone silent.
    case doorAlert = "door.alert"
    /// A door reported a duress PIN (decided online or offline).
    case doorDuress = "door.duress"
    /// An administrator sent a door a remote unlock or lock (the door's own report of what it
    /// did comes as a door record, `remote_command`).
    case doorCommand = "door.command"
    /// An administrator set a site or door mode (lockdown, release, normal) or its schedule.
    case modeChanged = "mode.changed"
    /// An administrator changed a user or their cards, PIN or rule.
    case userChanged = "user.changed"
    /// An administrator issued or revoked a one-time code, an enrolment code or a visitor pass.
    case codeChanged = "code.changed"
    /// Any other administrator's change (schedules, holidays, doors, tokens, webhooks).
    case siteChanged = "site.changed"

    public static func < (lhs: WebhookEventType, rhs: WebhookEventType) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The door records that are alerts, by the type the door journals them under.
    public static let alertRecords: Set<String> = Set(
        [DoorRecordType.forcedOpen, .heldOpen, .tamper, .keypadFailed, .readerOffline, .readerRefused, .readerTamper].map(\.rawValue)
            // Written by the site, not the door (``EventQuota``, ``DoorSilenceWatch``).
            + SiteRecordType.allCases.map(\.rawValue))

    /// The type of a record in the site's audit log, or nil for one no webhook carries (a
    /// rejected request).
    public static func forAudit(_ fields: [(String, String)]) -> WebhookEventType? {
        let value = { (key: String) in fields.last(where: { $0.0 == key })?.1 }
        if let decision = value("decision") { return Decision(rawValue: decision).map(Decision.answered.contains) == true ? .accessDecided : nil }
        guard let action = value("action") else { return nil }
        return AdministratorAction(rawValue: action)?.webhookEventType ?? .siteChanged
    }

    /// The type of a record a door forwarded (`/v1/events`), or nil for one no webhook carries.
    public static func forDoorRecord(type: String) -> WebhookEventType? {
        if type == DoorRecordType.duress.rawValue { return .doorDuress }
        if type == DoorRecordType.remoteCommand.rawValue { return .doorCommand }
        return alertRecords.contains(type) ? .doorAlert : nil
    }

    /// `types` as a subscription is listed and stored: `*` for every type, else the types
    /// comma-separated.
    public static func text(_ types: Set<WebhookEventType>) -> String {
        types.count == allCases.count ? "*" : types.sorted().map(\.rawValue).joined(separator: ",")
    }

    /// `access.decided,door.alert` (or `*`, every type) as types, or an error naming the word
    /// that is not one.
    public static func parse(_ text: String) throws -> Set<WebhookEventType> {
        let words = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if words == ["*"] { return Set(allCases) }
        var types: Set<WebhookEventType> = []
        for word in words {
            guard let type = WebhookEventType(rawValue: word) else {
                throw WebhookProblem(.events, "\(word) is not an event type (use * or some of \(allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            types.insert(type)
        }
        guard !types.isEmpty else { throw WebhookProblem(.events, "give * or some of \(allCases.map(\.rawValue).joined(separator: ", "))") }
        return types
    }
}

/// Why a webhook subscription cannot be made or changed as asked: what is wrong and what would
/// be valid, naming the option or field.
public struct WebhookProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the problem is about, as each caller names it.
    public enum Field: String, Sendable {
        case name, url, events, delivery

        /// The command line's word for it.
        public var argument: String {
            switch self {
            case .name: "NAME"
            case .url: "URL"
            case .events: "--events"
            case .delivery: "ID"
            }
        }
    }

    /// Of what sort: a value that cannot be, a name taken, or nothing by that name.
    public enum Kind: Sendable { case invalid, exists, missing }

    public let field: Field
    public let kind: Kind
    /// What is wrong and what would be valid, without the field's name.
    public let detail: String

    /// A value that cannot be.
    public init(_ field: Field, _ detail: String) {
        self.init(field, .invalid, detail)
    }

    public init(_ field: Field, _ kind: Kind, _ detail: String) {
        self.field = field
        self.kind = kind
        self.detail = detail
    }

    /// As the command line says it (`NAME: ...`).
    public var description: String { "\(field.argument): \(detail)" }
}
