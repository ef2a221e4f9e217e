import Foundation
import KioskPadStorage

/// Every change an administrator can make, by the name its audit record carries (`action`).
/// The console and the command line use the same name for the same change.
public enum AdministratorAction: String, Sendable, CaseIterable {
    case userAdd = "user_add"
    case userRemove = "user_remove"
    case userRename = "user_rename"
    case userRule = "user_rule"
    case userDisable = "user_disable"
    case userEnable = "user_enable"
    case userPIN = "user_pin"
    case userDuress = "user_duress"
    case userTOTP = "user_totp"
    case cardAdd = "card_add"
    case cardRemove = "card_remove"
    case cardLearnArm = "card_learn_arm"
    case cardClaim = "card_claim"
    case codeIssue = "code_issue"
    case codeRevoke = "code_revoke"
    case enrolCodeIssue = "enrol_code_issue"
    case visitorPassIssue = "visitor_pass_issue"
    case visitorPassRevoke = "visitor_pass_revoke"
    case scheduleSet = "schedule_set"
    case scheduleRemove = "schedule_remove"
    case timeZoneSet = "time_zone_set"
    case holidaySet = "holiday_set"
    case holidayRemove = "holiday_remove"
    case modeSet = "mode_set"
    case modeCheckSet = "mode_check_set"
    case unlockSet = "unlock_set"
    case cardPINSet = "card_pin_set"
    case doorGroupSet = "door_group_set"
    case doorGroupRemove = "door_group_remove"
    case levelSet = "level_set"
    case levelRemove = "level_remove"
    case userGroupSet = "user_group_set"
    case userGroupRemove = "user_group_remove"
    case doorAdd = "door_add"
    case doorRemove = "door_remove"
    case doorAdopt = "door_adopt"
    case doorRotate = "door_rotate"
    case doorRetire = "door_retire"
    /// A remote unlock sent to a door (``RemoteDoorCommands``).
    case doorUnlock = "door_unlock"
    /// A remote lock sent to a door.
    case doorLock = "door_lock"
    case settingsSet = "settings_set"
    case replicaKeyRotate = "replica_key_rotate"
    case replicaKeyFinish = "replica_key_finish"
    case lockoutClear = "lockout_clear"
    case alertAcknowledge = "alert_acknowledge"
    case usersImport = "users_import"
    case adminAdd = "admin_add"
    case adminRemove = "admin_remove"
    /// An administrator given another role (their sessions take it at their next request).
    case adminRole = "admin_role"
    /// An administrator signed in through the identity provider (`server.console.openid`):
    /// their account made, or given the role their claims map to now.
    case adminProviderSignIn = "admin_provider_sign_in"
    case adminTOTP = "admin_totp"
    case adminTOTPRemove = "admin_totp_remove"
    case entriesExport = "entries_export"
    case tokenCreate = "token_create"
    case tokenRevoke = "token_revoke"
    case webhookAdd = "webhook_add"
    case webhookRemove = "webhook_remove"
    case webhookResend = "webhook_resend"
    case webhookEnable = "webhook_enable"
    /// Made by the site itself (admin `site`), when a subscription's receiver failed for too long.
    case webhookDisable = "webhook_disable"
}

/// The one way an administrator's change is made, whatever it came through (the console, the
/// command line, the API): authorised by the actor's role (``NotPermitted`` else), then the change, its one audit record, the webhook messages that record
/// carries and its change-log entry, in one database transaction
/// (``VerifierStore/commitChange(_:)``): a crash keeps all of them or none. The record has one
/// shape: `time`, `admin`, `action`, `source`, then the change's own fields (never a PIN,
/// code, secret or key). A change that throws is not audited: nothing was changed.
public struct AdministratorChanges: Sendable {
    let store: any VerifierStore
    public let administrator: Administrator
    let now: @Sendable () -> Date

    public init(store: any VerifierStore, by administrator: Administrator, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.administrator = administrator
        self.now = now
    }

    /// Makes `change` and writes its audit record with `fields` and its change-log entry,
    /// in one transaction.
    @discardableResult
    public func apply<R: Sendable>(
        _ action: AdministratorAction, _ fields: [(String, String)] = [], _ change: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        try await apply(action, reporting: { (try await change(), fields) })
    }

    /// Makes `change`, which returns its result and the fields its audit record carries (for
    /// a change whose record names what it did: the rule saved, the rows exported), in one
    /// transaction with its record and change-log entry.
    @discardableResult
    public func apply<R: Sendable>(
        _ action: AdministratorAction, reporting change: @escaping @Sendable () async throws -> (R, [(String, String)])
    ) async throws -> R {
        // Authorised before anything is read or written: a refusal changes nothing.
        try administrator.authorise(action)
        let store = store
        let stamp = self
        return try await store.commitChange {
            let (result, fields) = try await change()
            try await store.audit(stamp.record(action, fields))
            try await store.logChanges([ChangeLogEntry.of(action, fields: fields)])
            return result
        }
    }

    /// The audit record of `action` by this administrator now, as ``apply(_:_:_:)`` writes it.
    public func record(_ action: AdministratorAction, _ fields: [(String, String)]) -> [(String, String)] {
        [
            ("time", UTCTimestamp.rfc3339(now(), milliseconds: true)), ("admin", administrator.name), ("action", action.rawValue),
            ("source", administrator.source),
        ]
            + fields
    }
}
