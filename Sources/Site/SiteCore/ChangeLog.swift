import Foundation

/// What kind of thing an administrator's change changed, as the site's change log names it.
public enum ChangedKind: String, Sendable, CaseIterable, Codable {
    case user
    case code
    case visitorPass = "visitor_pass"
    case schedule
    case holiday
    case mode
    case door
    case doorSettings = "door_settings"
    case accessGroup = "access_group"
    case replicaKey = "replica_key"
    case lockout
    case alert
    case administrator
    case token
    case webhook
    /// A remote command waiting for its door: no replica changes.
    case doorCommand = "door_command"
    /// Nothing stored changed (an export): the entry says only that it was done.
    case none
    /// Who may enter changed, and the entry names nothing more: a write that is no
    /// administrator's change (``ChangeCause/door``), or the upgrade that made the replica's
    /// version a change-log position (``ChangeCause/schemaUpgrade``).
    case replica
}

/// What made a change-log entry's change, as the log's `action` column spells it.
public enum ChangeCause: Sendable, Equatable, Hashable {
    /// An administrator's change, made through SiteCore's layer.
    case administrator(AdministratorAction)
    /// A change of who may enter that is no administrator's: a door's attempt learned a card
    /// or set a PIN chosen at the door (kind `user`, the user named), or another write of a
    /// door's request, for which the database writes an entry naming nothing (kind `replica`)
    /// when its transaction commits without one.
    case door
    /// Schema version 24, which made the replica's version a change-log position.
    case schemaUpgrade

    public init?(rawValue: String) {
        switch rawValue {
        case "door": self = .door
        case "schema_upgrade": self = .schemaUpgrade
        default:
            guard let action = AdministratorAction(rawValue: rawValue) else { return nil }
            self = .administrator(action)
        }
    }

    public var rawValue: String {
        switch self {
        case .administrator(let action): action.rawValue
        case .door: "door"
        case .schemaUpgrade: "schema_upgrade"
        }
    }
}

/// One entry of the site's change log: what kind of thing changed and which one (empty for
/// the site as a whole), written in the change's own transaction. Its position in the log,
/// a site-wide sequence number, is the database's.
public struct ChangeLogEntry: Sendable, Equatable {
    public let kind: ChangedKind
    public let subject: String
    public let cause: ChangeCause

    /// The administrator's action, when an administrator made the change.
    public var action: AdministratorAction? {
        if case .administrator(let action) = cause { return action }
        return nil
    }

    public init(kind: ChangedKind, subject: String, cause: ChangeCause) {
        self.kind = kind
        self.subject = subject
        self.cause = cause
    }

    public init(kind: ChangedKind, subject: String, action: AdministratorAction) {
        self.init(kind: kind, subject: subject, cause: .administrator(action))
    }

    /// The audit fields that name a change's subject, in the order they are looked for.
    static let subjectFields = [
        "user", "terminal_id", "door", "webhook", "token", "administrator", "schedule", "date", "code_id", "pass_id", "delivery", "door_group",
        "user_group", "level", "name", "mode",
    ]

    /// The entry of `action` with its audit `fields` (the change's own fields, after
    /// `time`, `admin`, `action` and `source`).
    public static func of(_ action: AdministratorAction, fields: [(String, String)]) -> ChangeLogEntry {
        let subject = subjectFields.lazy.compactMap { key in fields.first(where: { $0.0 == key })?.1 }.first ?? ""
        return ChangeLogEntry(kind: action.changedKind, subject: subject, action: action)
    }
}

/// A change-log entry as it was committed, with its position.
public struct LoggedChange: Sendable, Equatable {
    /// The site-wide sequence number: later changes have larger ones.
    public let sequence: Int64
    public let entry: ChangeLogEntry
    public let time: Date

    public init(sequence: Int64, entry: ChangeLogEntry, time: Date) {
        self.sequence = sequence
        self.entry = entry
        self.time = time
    }
}

extension AdministratorAction {
    /// What kind of thing this action changes.
    public var changedKind: ChangedKind {
        switch self {
        case .userAdd, .userRemove, .userRename, .userRule, .userDisable, .userEnable, .userPIN, .userDuress, .userTOTP, .cardAdd, .cardRemove,
            .cardClaim, .usersImport:
            .user
        case .cardLearnArm: .door
        case .codeIssue, .codeRevoke, .enrolCodeIssue: .code
        case .visitorPassIssue, .visitorPassRevoke: .visitorPass
        case .scheduleSet, .scheduleRemove: .schedule
        case .timeZoneSet, .holidaySet, .holidayRemove: .holiday
        case .modeSet, .modeCheckSet: .mode
        case .unlockSet, .cardPINSet, .doorAdd, .doorRemove, .doorAdopt, .doorRotate, .doorRetire: .door
        case .settingsSet: .doorSettings
        case .doorGroupSet, .doorGroupRemove, .levelSet, .levelRemove, .userGroupSet, .userGroupRemove: .accessGroup
        case .replicaKeyRotate, .replicaKeyFinish: .replicaKey
        case .lockoutClear: .lockout
        case .alertAcknowledge: .alert
        case .adminAdd, .adminRemove, .adminRole, .adminProviderSignIn, .adminTOTP, .adminTOTPRemove: .administrator
        case .tokenCreate, .tokenRevoke: .token
        case .webhookAdd, .webhookRemove, .webhookResend, .webhookEnable, .webhookDisable: .webhook
        case .entriesExport: ChangedKind.none
        case .doorUnlock, .doorLock: .doorCommand
        }
    }
}

extension AdministratorAction {
    /// The type of the webhook message this action's audit record goes out as.
    public var webhookEventType: WebhookEventType {
        switch self {
        case .modeSet, .modeCheckSet, .unlockSet: .modeChanged
        case .doorUnlock, .doorLock: .doorCommand
        case .codeIssue, .codeRevoke, .enrolCodeIssue, .visitorPassIssue, .visitorPassRevoke: .codeChanged
        case .userAdd, .userRemove, .userRename, .userRule, .userDisable, .userEnable, .userPIN, .userDuress, .userTOTP, .cardAdd, .cardRemove,
            .cardLearnArm, .cardClaim:
            .userChanged
        // A user group is the site's organisation, like a level or a door group; a user put in
        // one is `user_rule`.
        case .userGroupSet, .userGroupRemove, .cardPINSet, .scheduleSet, .scheduleRemove, .timeZoneSet, .holidaySet, .holidayRemove,
            .doorGroupSet, .doorGroupRemove, .levelSet, .levelRemove, .doorAdd, .doorRemove, .doorAdopt, .doorRotate, .doorRetire, .settingsSet,
            .replicaKeyRotate, .replicaKeyFinish, .lockoutClear, .alertAcknowledge, .usersImport, .adminAdd, .adminRemove, .adminRole, .adminProviderSignIn,
            .adminTOTP,
            .adminTOTPRemove, .entriesExport, .tokenCreate, .tokenRevoke, .webhookAdd, .webhookRemove, .webhookResend, .webhookEnable,
            .webhookDisable:
            .siteChanged
        }
    }
}
