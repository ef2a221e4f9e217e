import KioskPadAccess

/// An operator limited to door groups (a guard for building B): they see and act on the doors
/// of those groups only, and never on the whole site (its mode). The groups are resolved to
/// doors when asked, so a door added to a group is theirs from then on.
public enum DoorScopes {
    /// The roles a door-group limit may be given to: those whose powers are about doors, and
    /// the user manager, for the users whose access lies within them (``requireUser(_:_:rule:site:)``).
    public static let limitable: Set<SiteRole> = [.guard, .userManager]

    /// The doors `actor` may see and act on in `site`: nil for every door.
    public static func doors(of actor: Administrator, site: SiteRules) -> Set<String>? {
        guard let groups = actor.doorGroups else { return nil }
        return Set(groups.flatMap { site.access.doorGroups[$0]?.doors ?? [] })
    }

    /// Throws ``NotPermitted`` unless `actor` may act on `door` (nil: the whole site).
    public static func require(_ actor: Administrator, door: String?, administration: any VerifierAdministration) async throws {
        guard let groups = actor.doorGroups else { return }
        let refusal = NotPermitted(actor: actor.name, role: actor.role, permission: .commandDoors, limitedTo: groups, door: door)
        guard let door else { throw refusal }
        guard let doors = doors(of: actor, site: try await administration.siteRules()), doors.contains(door) else { throw refusal }
    }

    /// Checks a limit before it is given: only to a limitable role, every group one the site has.
    public static func check(_ groups: [String]?, role: SiteRole, site: SiteRules) throws {
        guard let groups else { return }
        guard limitable.contains(role) else {
            throw UserEditError(
                description: "--door-groups: only \(limitable.map(\.name).sorted().joined(separator: ", ")) may be limited to door groups, not \(role.name)")
        }
        guard !groups.isEmpty else { throw UserEditError(description: "--door-groups: name at least one door group") }
        let unknown = groups.filter { site.access.doorGroups[$0] == nil }
        guard unknown.isEmpty else {
            let known = site.access.doorGroups.keys.sorted()
            throw UserEditError(
                description:
                    "--door-groups: no door group \(unknown.joined(separator: ", ")) (there are: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
    }
}
