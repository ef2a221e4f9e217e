import Foundation
import KioskPadAccess

/// Changing the settings a site gives its adopted doors: the one core of `verifier settings
/// set|unset` and the console's Doors page, one audit record each (`settings_set`: the scope,
/// the keys set and removed, the version it made). The site's settings apply to every adopted
/// door, a door's own on top; each door picks a change up at its next check-in.
public struct DoorSettingsEditing: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges

    public init(administration: any VerifierAdministration, changes: AdministratorChanges) {
        self.administration = administration
        self.changes = changes
    }

    /// Sets `assignments` (`KEY=VALUE`) and removes `removing` in `door`'s settings (nil: the
    /// site's), in one change; refused, naming what, for an unknown key, a value of the wrong
    /// kind or a door the site has never heard of. Returns the new settings version.
    @discardableResult
    public func change(door: String?, set assignments: [String], remove removing: [String]) async throws -> Int64 {
        if let door, try await !KnownDoors.unknown([door], store: changes.store, administration: administration).isEmpty {
            throw UserEditError(description: "door '\(door)' is not a door of this site (see `kioskpad verifier terminal list`)", kind: .notFound)
        }
        guard !assignments.isEmpty || !removing.isEmpty else { throw UserEditError(description: "give at least one KEY=VALUE to set or KEY to remove") }
        let parsed = try assignments.map(DoorSettings.parse)
        let scope = door ?? DoorSettings.siteScope
        let fields: [(String, String)] = [
            ("scope", door ?? "site"), ("set", parsed.map(\.0).joined(separator: ",")), ("removed", removing.joined(separator: ",")),
        ]
        let administration = administration
        // Read, checked and written in the change's one transaction: two changes at once
        // cannot each keep what the other removed.
        return try await changes.apply(
            .settingsSet,
            reporting: {
                var settings = try await administration.settings(scope: scope)
                for (key, value) in parsed { try settings.set(key, value) }
                for key in removing { try settings.set(key, nil) }
                try await Self.checkTogether(settings, scope: scope, door: door, administration: administration)
                let version = try await administration.setSettings(scope: scope, settings)
                return (version, fields + [("version", String(version))])
            })
    }

    /// What each door would get after the change, checked as a whole (``DoorSettings/checkTogether(_:scope:)``):
    /// for a door's own, the site's with them on top; for the site's, them alone and with each
    /// door's own on top.
    static func checkTogether(_ settings: DoorSettings, scope: String, door: String?, administration: any VerifierAdministration) async throws {
        if let door {
            let site = try await administration.settings(scope: DoorSettings.siteScope)
            try DoorSettings.checkTogether(site.overlaid(by: settings), scope: "door '\(door)'")
            return
        }
        try DoorSettings.checkTogether(settings, scope: "every door")
        for (other, own) in try await administration.allSettings().byScope.sorted(by: { $0.key < $1.key }) where other != DoorSettings.siteScope {
            try DoorSettings.checkTogether(settings.overlaid(by: own), scope: "door '\(other)' (with its own settings)")
        }
    }
}
