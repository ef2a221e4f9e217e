import Foundation
import KioskPadAccess
import KioskPadCore

/// What a door group, an access level or a user group is defined as.
public enum AccessGroupDefinition: Sendable {
    case doorGroup(DoorGroup)
    case level(AccessLevel)
    case userGroup(UserGroup)

    public var kind: AccessGroupKind {
        switch self {
        case .doorGroup: .doorGroup
        case .level: .level
        case .userGroup: .userGroup
        }
    }

    /// Its words as stored and audited (`doors=a,b schedule=office`), its group's ``RuleFields/text``.
    var text: String {
        switch self {
        case .doorGroup(let group): group.text
        case .level(let level): level.text
        case .userGroup(let group): group.text
        }
    }

    /// The doors it names itself.
    var doors: [String] {
        switch self {
        case .doorGroup(let group): group.doors
        case .level(let level): level.doors
        case .userGroup: []
        }
    }
}

/// Door groups, access levels and user groups, changed once for every front end: the
/// store's checks (what it names must exist; what is in use is not removed), the doors named
/// checked against those the site knows (kept with a ``ChangeNote`` when unknown), and the
/// change with its audit record (`door_group_set`, `level_set`, `user_group_set` with the
/// name and `definition`; `..._remove` with the name) and change-log entry in one
/// transaction (``AdministratorChanges``).
public struct AccessGroupChanges: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges

    public init(administration: any VerifierAdministration, changes: AdministratorChanges) {
        self.administration = administration
        self.changes = changes
    }

    /// Adds or replaces `name` as `definition`; the notes on the doors it names.
    public func set(_ name: String, _ definition: AccessGroupDefinition) async throws -> [ChangeNote] {
        let administration = self.administration
        let kind = definition.kind
        try await changes.apply(kind.setAction, [(kind.rawValue, name), ("definition", definition.text)]) {
            switch definition {
            case .doorGroup(let group): try await administration.setDoorGroup(name: name, group)
            case .level(let level): try await administration.setLevel(name: name, level)
            case .userGroup(let group): try await administration.setUserGroup(name: name, group)
            }
        }
        return try await KnownDoors.notes(naming: definition.doors, store: changes.store, administration: administration)
    }

    /// Removes the `kind` named `name`; refused when there is none, or something uses it.
    public func remove(_ kind: AccessGroupKind, _ name: String) async throws {
        let administration = self.administration
        try await changes.apply(kind.removeAction, [(kind.rawValue, name)]) { try await administration.removeAccessGroup(kind: kind, name: name) }
    }
}
