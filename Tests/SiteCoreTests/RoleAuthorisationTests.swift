import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// The application layer checks the actor's role for every change it makes, whatever front end
/// built the command: a refused command changes nothing and leaves no audit record, webhook
/// message or change-log entry; a role is given only by someone who has all of it.
@Suite("Roles in the application layer")
struct RoleAuthorisationTests {
    func users(_ store: StoreUnderTest, _ actor: Administrator) throws -> UsersEditing {
        UsersEditing(
            administration: store.administration, replica: try #require(store.administration as? any ReplicaKeeping), lookupKey: nil,
            changes: AdministratorChanges(store: store.store, by: actor))
    }

    @Test func aGuardAddingAUserIsRefusedAndNothingIsWritten() async throws {
        let store = try await StoreUnderTest.make(.sqlite)
        defer { Task { await store.destroy() } }
        let before = (try await store.auditRecords().count, try await store.store.changeLog(after: 0, limit: 1_000).count)
        let add = AddUser(name: "dana", pin: .digits(SecretDigits(ascii: "482615")!, iterations: 1_000))
        let refusal = await #expect(throws: NotPermitted.self) { try await users(store, .console("gina", role: .guard, from: "test")).add(add) }
        #expect(
            refusal?.description == "gina (guard) may not do this: it needs users.change, which owner, administrator, user-manager have; nothing was changed")
        #expect(try await store.administration.userListing(name: "dana") == nil)
        let after = (try await store.auditRecords().count, try await store.store.changeLog(after: 0, limit: 1_000).count)
        #expect(after == before, "no record, no change-log entry")
        // The same command by a user manager is made and audited under them.
        _ = try await users(store, .console("uma", role: .userManager, from: "test")).add(add)
        #expect(try await store.auditRecords().last?["admin"] == "uma")
    }

    @Test func aTokenIsItsRoleWithinItsScopes() {
        let token = APIToken(name: "desk", scopes: [.doors, .users], role: .guard, createdBy: "t", created: Date(), expires: nil)
        #expect(token.permissions.contains(.commandDoors) && token.permissions.contains(.setModes))
        #expect(!token.permissions.contains(.changeUsers), "the users scope gives nothing a guard may not do")
        #expect(!token.permissions.contains(.manageDoors), "the doors scope gives a guard no more than a guard's")
        let reader = APIToken(name: "r", scopes: [.read], role: .administrator, createdBy: "t", created: Date(), expires: nil)
        #expect(reader.permissions == SitePermission.views, "read alone: every view, no change")
    }

    @Test func noOneGivesARoleWithMoreThanTheirOwn() async throws {
        let store = try await StoreUnderTest.make(.sqlite)
        defer { Task { await store.destroy() } }
        let administrator = AdministratorChanges(store: store.store, by: .console("ada", role: .administrator, from: "test"))
        let tokens = APITokenAdministration(store: store.tokens, changes: administrator)
        _ = try await tokens.create(name: "desk", scopes: [.doors], role: .guard, expires: nil)
        await #expect(throws: APITokenProblem("--role: ada (administrator) may not make a token of role owner")) {
            _ = try await tokens.create(name: "boss", scopes: [.doors], role: .owner, expires: nil)
        }
        // Administrators' accounts are an owner's: an administrator may not add one at all.
        let accounts = AdministratorAccounts(console: store.console, administration: store.administration, changes: administrator, location: "test")
        let hash = try PINHash.make(password: Array("a long password".utf8), iterations: 1_000)
        await #expect(throws: UserEditError.self) { try await accounts.add("eve", hash: hash, role: .owner) }
        await #expect(throws: NotPermitted.self) { try await accounts.add("eve", hash: hash, role: .auditor) }
        let owner = AdministratorAccounts(
            console: store.console, administration: store.administration,
            changes: AdministratorChanges(store: store.store, by: .console("olga", role: .owner, from: "test")), location: "test")
        try await owner.add("eve", hash: hash, role: .auditor)
        try await owner.setRole("eve", role: .guard)
        #expect(try await store.console.admin(name: "eve")?.role == .guard)
        let records = try await store.auditRecords().filter { $0["action"]?.hasPrefix("admin_") == true }
        #expect(records.map { "\($0["action"] ?? "") \($0["role"] ?? "")" } == ["admin_add auditor", "admin_role guard"])
    }

    @Test func everyActionNeedsThePermissionTheTableGivesAndOnlyThose() throws {
        for role in SiteRole.allCases {
            let actor = Administrator.console("someone", role: role, from: "test")
            for action in AdministratorAction.allCases {
                let permitted = (try? actor.authorise(action)) != nil
                let hosting = [.visitorPassIssue, .visitorPassRevoke].contains(action) && role.permissions.contains(.hostVisitorPasses)
                #expect(permitted == (role.permissions.contains(action.permission) || hosting), "\(role.name) \(action.rawValue)")
            }
        }
        #expect(SiteRole.owner.permissions == Set(SitePermission.allCases))
        #expect(SiteRole.auditor.permissions.isSubset(of: SitePermission.views.union([.exportEntries])), "an auditor changes nothing")
    }
}

/// The roles' table in docs/site-server.md is the code's, as `kioskpad verifier roles` prints it.
@Suite("Roles: the docs print the code's table")
struct RoleTableDocsTests {
    @Test func theSiteServerDocsHoldTheTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/site-server.md"), encoding: .utf8)
        #expect(docs.contains(SiteRole.markdownTable()), "docs/site-server.md's Roles table differs from `kioskpad verifier roles`")
    }
}

/// A guard limited to door groups acts on those groups' doors only, never on the whole site,
/// and the limit is given only to a guard, naming groups the site has.
@Suite("Roles: a guard limited to door groups")
struct DoorScopeTests {
    @Test func aGuardOfOneBuildingOpensAndSetsItsDoorsOnly() async throws {
        let store = try await StoreUnderTest.make(.sqlite)
        defer { Task { await store.destroy() } }
        for door in ["b-front", "a-front"] { try await store.administration.addDoor(terminalID: door, secret: .generate()) }
        try await store.administration.setDoorGroup(name: "building-b", DoorGroup(doors: ["b-front"]))
        let guardOfB = AdministratorChanges(store: store.store, by: .console("gus", role: .guard, doorGroups: ["building-b"], from: "test"))
        let commands = RemoteDoorCommands(administration: store.administration, changes: guardOfB)
        _ = try await commands.issue(RemoteDoorCommand(door: "b-front", action: .unlock, reason: "courier"), at: Date())
        let refusal = await #expect(throws: NotPermitted.self) {
            _ = try await commands.issue(RemoteDoorCommand(door: "a-front", action: .unlock, reason: "courier"), at: Date())
        }
        #expect(refusal?.description == "gus (guard of door groups building-b) may not act on door a-front, which is in none of them; nothing was changed")
        let modes = ModeChanges(administration: store.administration, changes: guardOfB)
        _ = try await modes.set(SetMode(.lockdown, door: "b-front"), at: Date())
        await #expect(throws: NotPermitted.self) { _ = try await modes.set(SetMode(.lockdown, door: nil), at: Date()) }
        await #expect(throws: NotPermitted.self) { _ = try await modes.set(SetMode(.lockdown, door: "a-front"), at: Date()) }
        let alerts = AlertChanges(console: store.console, administration: store.administration, changes: guardOfB)
        await #expect(throws: NotPermitted.self) { try await alerts.acknowledge(door: "a-front", alert: "forced_open", at: Date()) }
        try await alerts.acknowledge(door: "b-front", alert: "forced_open", at: Date())
        let audited = try await store.auditRecords().filter { $0["admin"] == "gus" }.map { $0["action"] ?? "" }
        #expect(audited == ["door_unlock", "mode_set", "alert_acknowledge"], "only what was let through: \(audited)")
    }

    @Test func theLimitIsGivenOnlyToAGuardWithGroupsTheSiteHas() async throws {
        let store = try await StoreUnderTest.make(.sqlite)
        defer { Task { await store.destroy() } }
        try await store.administration.setDoorGroup(name: "building-b", DoorGroup(doors: ["b-front"]))
        let owner = AdministratorAccounts(
            console: store.console, administration: store.administration,
            changes: AdministratorChanges(store: store.store, by: .console("olga", role: .owner, from: "test")), location: "test")
        let hash = try PINHash.make(password: Array("a long password".utf8), iterations: 1_000)
        await #expect(throws: UserEditError(description: "--door-groups: no door group building-c (there are: building-b)")) {
            try await owner.add("gus", hash: hash, role: .guard, doorGroups: ["building-c"])
        }
        await #expect(throws: UserEditError(description: "--door-groups: only guard, user-manager may be limited to door groups, not auditor")) {
            try await owner.add("ada", hash: hash, role: .auditor, doorGroups: ["building-b"])
        }
        try await owner.add("gus", hash: hash, role: .guard, doorGroups: ["building-b"])
        #expect(try await store.console.admin(name: "gus")?.doorGroups == ["building-b"])
        try await owner.setRole("gus", role: .guard)
        #expect(try await store.console.admin(name: "gus")?.doorGroups == nil, "a role given without groups is every door's")
    }

    @Test func aUserManagerOfOneBuildingChangesOnlyUsersWhoseAccessLiesThere() async throws {
        let store = try await StoreUnderTest.make(.sqlite)
        defer { Task { await store.destroy() } }
        try await store.administration.setDoorGroup(name: "building-b", DoorGroup(doors: ["b-front", "b-back"]))
        try await store.administration.setLevel(name: "b-staff", AccessLevel(doorGroups: ["building-b"]))
        let owner = UsersEditing(
            administration: store.administration, replica: nil, lookupKey: nil,
            changes: AdministratorChanges(store: store.store, by: .console("olga", role: .owner, from: "test")))
        let pin = { NewUserPIN.digits(SecretDigits(ascii: "2580")!, iterations: 1_000) }
        var inB = AccessRule()
        inB.doors = ["b-front"]
        var inA = AccessRule()
        inA.doors = ["a-front", "b-front"]
        var viaLevel = AccessRule()
        viaLevel.levels = ["b-staff"]
        for (name, rule) in [("bea", inB), ("amy", inA), ("eve", AccessRule()), ("lev", viaLevel)] {
            _ = try await owner.add(AddUser(name: name, pin: pin(), rule: rule))
        }
        let umaChanges = AdministratorChanges(store: store.store, by: .console("uma", role: .userManager, doorGroups: ["building-b"], from: "test"))
        let uma = UsersEditing(administration: store.administration, replica: nil, lookupKey: nil, changes: umaChanges)
        // Within building B: bea (her own door), lev (a level over the group).
        try await uma.setDisabled("bea", true)
        try await uma.set(.pin, of: "lev", to: SecretDigits(ascii: "1357")!, iterations: 1_000)
        _ = try await uma.add(AddUser(name: "ben", pin: pin(), rule: inB))
        // Beyond it: amy (a door in A too), eve (every door), a new user with every door or A's door.
        let refusal = await #expect(throws: NotPermitted.self) { try await uma.setDisabled("amy", true) }
        #expect(
            refusal?.description
                == "uma (user-manager of door groups building-b) may not act on user amy, whose access is not all within them; nothing was changed")
        await #expect(throws: NotPermitted.self) { _ = try await uma.remove("eve") }
        await #expect(throws: NotPermitted.self) { _ = try await uma.add(AddUser(name: "zed", pin: pin())) }
        await #expect(throws: NotPermitted.self) { _ = try await uma.add(AddUser(name: "zoe", pin: pin(), rule: inA)) }
        // Nor may a user of theirs be given a door beyond it: refused, and her rule as it was.
        await #expect(throws: NotPermitted.self) { _ = try await uma.changeRule(of: "bea", AccessRulePatch(doors: .some(["a-front"]))) }
        #expect(try await store.administration.siteRules().rules["bea"]?.doors == ["b-front"])
        let codes = CodeIssuing(administration: store.administration, changes: umaChanges, codeLength: 8, lookupKey: nil)
        await #expect(throws: NotPermitted.self) { _ = try await codes.issue(user: "amy", door: nil, expires: Date().addingTimeInterval(600)) }
        _ = try await codes.issue(user: "bea", door: "b-front", expires: Date().addingTimeInterval(600))
        // What they see: the users within.
        let site = try await store.administration.siteRules()
        let listings = ["bea", "amy", "eve", "lev", "ben"].map {
            UserListing(user: UserSummary(name: $0, hasPIN: true, hasTOTP: false, hasDuressPIN: false, cards: 0), rule: site.rules[$0] ?? AccessRule())
        }
        #expect(DoorScopes.visible(listings, to: umaChanges.administrator, site: site).map(\.user.name) == ["bea", "lev", "ben"])
        let audited = try await store.auditRecords().filter { $0["admin"] == "uma" }.map { $0["action"] ?? "" }
        #expect(audited == ["user_disable", "user_pin", "user_add", "code_issue"], "only what was let through: \(audited)")
    }
}
