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
    /// Nothing stored changed (an export): the entry says only that it was done.
    case none
}

/// One entry of the site's change log: what kind of thing changed and which one (empty for
/// the site as a whole), written in the change's own transaction. Its position in the log,
/// a site-wide sequence number, is the database's.
public struct ChangeLogEntry: Sendable, Equatable {
    public let kind: ChangedKind
    public let subject: String
    public let action: AdministratorAction

    public init(kind: ChangedKind, subject: String, action: AdministratorAction) {
        self.kind = kind
        self.subject = subject
        self.action = action
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
        case .adminAdd, .adminRemove, .adminTOTP, .adminTOTPRemove: .administrator
        case .tokenCreate, .tokenRevoke: .token
        case .webhookAdd, .webhookRemove, .webhookResend, .webhookEnable, .webhookDisable: .webhook
        case .entriesExport: ChangedKind.none
        }
    }
}

extension AdministratorAction {
    /// The type of the webhook message this action's audit record goes out as.
    public var webhookEventType: WebhookEventType {
        switch self {
        case .modeSet, .modeCheckSet, .unlockSet: .modeChanged
        case .codeIssue, .codeRevoke, .enrolCodeIssue, .visitorPassIssue, .visitorPassRevoke: .codeChanged
        case .userAdd, .userRemove, .userRename, .userRule, .userDisable, .userEnable, .userPIN, .userDuress, .userTOTP, .cardAdd, .cardRemove,
            .cardLearnArm, .cardClaim:
            .userChanged
        // A user group is the site's organisation, like a level or a door group; a user put in
        // one is `user_rule`.
        case .userGroupSet, .userGroupRemove, .cardPINSet, .scheduleSet, .scheduleRemove, .timeZoneSet, .holidaySet, .holidayRemove,
            .doorGroupSet, .doorGroupRemove, .levelSet, .levelRemove, .doorAdd, .doorRemove, .doorAdopt, .doorRotate, .doorRetire, .settingsSet,
            .replicaKeyRotate, .replicaKeyFinish, .lockoutClear, .alertAcknowledge, .usersImport, .adminAdd, .adminRemove, .adminTOTP,
            .adminTOTPRemove, .entriesExport, .tokenCreate, .tokenRevoke, .webhookAdd, .webhookRemove, .webhookResend, .webhookEnable,
            .webhookDisable:
            .siteChanged
        }
    }
}
