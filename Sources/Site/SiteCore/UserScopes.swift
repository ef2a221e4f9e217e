import KioskPadAccess

/// A user manager limited to door groups (the user manager for building B): they see and
/// change only the users whose access lies within those groups' doors, every grant of the
/// user's (their own doors, each level, each level through each group, a disabled group's
/// too) opening only doors there. A user who may open every door, or any door outside, is
/// someone else's to change; a new rule is held to the same line before it is stored.
extension DoorScopes {
    /// The doors `rule` can open in `site`: nil when some grant opens every door.
    public static func doors(of rule: AccessRule, site: SiteRules) -> Set<String>? {
        var grants = site.access.grants(of: rule)
        for group in rule.groups where site.access.userGroups[group]?.disabled == true {
            for name in site.access.userGroups[group]?.levels ?? [] {
                if let level = site.access.levels[name] {
                    grants.append(AccessGrant(source: .group(group, level: name), doors: site.access.doors(of: level), schedule: level.schedule))
                }
            }
        }
        var doors: Set<String> = []
        for grant in grants {
            guard let opened = grant.doors else { return nil }
            doors.formUnion(opened)
        }
        return doors
    }

    /// Whether `actor` may see and change a user whose rule is `rule`.
    public static func reaches(_ actor: Administrator, rule: AccessRule, site: SiteRules) -> Bool {
        guard let limit = doors(of: actor, site: site) else { return true }
        guard let opened = doors(of: rule, site: site) else { return false }
        return opened.isSubset(of: limit)
    }

    /// Throws ``NotPermitted`` unless `actor` may act on `user`, whose rule is `rule` (nil:
    /// their rule now in `site`; a user not there has the default rule, every door).
    public static func requireUser(_ actor: Administrator, _ user: String, rule: AccessRule? = nil, site: SiteRules) throws {
        guard let groups = actor.doorGroups else { return }
        guard reaches(actor, rule: rule ?? site.rules[user] ?? AccessRule(), site: site) else {
            throw NotPermitted(actor: actor.name, role: actor.role, permission: .changeUsers, limitedTo: groups, user: user)
        }
    }

    /// ``requireUser(_:_:rule:site:)`` with the site's rules read from `administration`, and
    /// only when `actor` is limited (an unlimited one costs no read).
    public static func requireUser(_ actor: Administrator, _ user: String, rule: AccessRule? = nil, administration: any VerifierAdministration)
        async throws
    {
        guard actor.doorGroups != nil else { return }
        try requireUser(actor, user, rule: rule, site: try await administration.siteRules())
    }

    /// `listings` without the users `actor` may not see.
    public static func visible(_ listings: [UserListing], to actor: Administrator, site: SiteRules) -> [UserListing] {
        guard actor.doorGroups != nil else { return listings }
        return listings.filter { reaches(actor, rule: $0.rule, site: site) }
    }
}
