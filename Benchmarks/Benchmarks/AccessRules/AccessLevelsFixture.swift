import Foundation
import KioskPadAccess
import SiteCore

/// The same 10,000 users and 100 schedules as ``AccessFixture``, organised instead by 200
/// doors in 40 door groups, 100 access levels and 50 user groups: each user in two groups
/// (four levels), the decision the union of their levels' schedules at the door.
enum AccessLevelsFixture {
    static let doors = 200
    static let groups = 50
    static let levels = 100

    static let site: SiteRules = {
        var site = AccessFixture.site
        site.rules = [:]
        var tree = AccessLevels()
        for index in 0..<40 { tree.doorGroups["dg\(index)"] = DoorGroup(doors: (0..<5).map { "door-\((index * 5 + $0) % doors)" }) }
        for index in 0..<levels {
            tree.levels["l\(index)"] = AccessLevel(
                doors: index % 4 == 0 ? ["front-door"] : [], doorGroups: ["dg\(index % 40)", "dg\((index + 7) % 40)"], schedule: "s\(index)")
        }
        for index in 0..<groups { tree.userGroups["g\(index)"] = UserGroup(levels: ["l\(index * 2)", "l\(index * 2 + 1)"]) }
        site.access = tree
        for index in 0..<AccessFixture.users {
            site.rules["u\(index)"] = AccessRule(
                validFrom: SiteDate(parsing: "2026-01-01"), validUntil: SiteDate(parsing: "2027-12-31T18:00"),
                groups: ["g\(index % groups)", "g\((index + 13) % groups)"])
        }
        return site
    }()

    /// Each user's stored row with what the server reads for a rule with levels: the tree and every schedule.
    static let rows: [UserAccess] = {
        (0..<AccessFixture.users).map { index in
            UserAccess(
                ruleText: site.rules["u\(index)"]!.fields.joined(separator: " "), scheduleSpec: nil, timeZone: "Europe/Berlin", levels: site.access,
                scheduleSpecs: site.schedules, treeVersion: 1)
        }
    }()
}
