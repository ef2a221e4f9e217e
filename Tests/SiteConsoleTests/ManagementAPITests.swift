import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import NIOCore
import SiteCore
import Testing
import VerifierTestSupport

/// The management API (`/api/v1/`) on the console's router, on both stores: tokens made by
/// the one administration function, refused when missing, unknown, revoked or expired, held
/// to their scope and their rate; users read in pages and changed, audited under the token.
@Suite("Management API: tokens, scopes and users", .serialized)
struct ManagementAPITests {
    func token(_ harness: ConsoleHarness, _ name: String, _ scopes: Set<APIScope>, expires: Date? = nil) async throws -> String {
        let changes = AdministratorChanges(store: harness.under.store, by: .commandLine(["USER": "test"]), now: { harness.clock.now })
        return try await APITokenAdministration(store: harness.under.tokens, changes: changes).create(
            name: name, scopes: scopes, expires: expires, now: harness.clock.now)
    }

    func call(_ client: any TestClientProtocol, _ path: String, _ method: HTTPRequest.Method = .get, token: String?) async throws -> (Int, [String: Any]) {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: nil)
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
        return (Int(response.status.code), object)
    }

    func addUsers(_ harness: ConsoleHarness, _ names: [String]) async throws {
        for name in names {
            try await harness.under.administration.addUser(
                name: name, hash: try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000), tag: nil, rule: AccessRule())
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func usersAreReadInPagesByNameAndSearched(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await addUsers(harness, ["cai", "ana", "ben", "bea"])
            let secret = try await token(harness, "sync", [.read])
            #expect(secret.hasPrefix("kpt_") && secret.count == 47)
            let (status, first) = try await call(client, "/api/v1/users?limit=2", token: secret)
            #expect(status == 200)
            #expect((first["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["ana", "bea"])
            #expect(first["next"] as? String == "bea")
            let (_, second) = try await call(client, "/api/v1/users?limit=2&after=bea", token: secret)
            #expect((second["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["ben", "cai"])
            #expect(second["next"] is NSNull, "the last page says so")
            let (_, searched) = try await call(client, "/api/v1/users?q=B", token: secret)
            #expect((searched["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["bea", "ben"])
            let (one, ben) = try await call(client, "/api/v1/users/ben", token: secret)
            #expect(one == 200 && ben["pin"] as? Bool == true && ben["enabled"] as? Bool == true && ben["hash"] == nil)
            let (missing, said) = try await call(client, "/api/v1/users/zed", token: secret)
            #expect(missing == 404 && (said["error"] as? String)?.contains("zed") == true)
            let (bad, why) = try await call(client, "/api/v1/users?limit=0", token: secret)
            #expect(bad == 400 && (why["error"] as? String)?.contains("limit must be") == true)
            let listed = try #require(try await harness.under.tokens.tokens().first)
            #expect(listed.name == "sync" && listed.lastUsed == harness.clock.now, "its last use is kept")
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func pagesFollowByteOrderAndASearchTakesItsCharactersLiterally(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await addUsers(harness, ["ana", "Zoe", "a_b", "a-b", "axb"])
            let secret = try await token(harness, "sync", [.read])
            var names: [String] = []
            var after = ""
            while true {
                let (_, page) = try await call(client, "/api/v1/users?limit=2" + (after.isEmpty ? "" : "&after=\(after)"), token: secret)
                names += (page["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
                guard let next = page["next"] as? String else { break }
                after = next
            }
            #expect(names == ["Zoe", "a-b", "a_b", "ana", "axb"], "byte order on both engines, each once")
            let (_, searched) = try await call(client, "/api/v1/users?q=_", token: secret)
            #expect((searched["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["a_b"], "'_' is not a wildcard")
            let (_, cased) = try await call(client, "/api/v1/users?q=zO", token: secret)
            #expect((cased["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Zoe"])
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aTokenMissingUnknownRevokedOrExpiredIsRefused(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let response = try await client.execute(uri: "/api/v1/users", method: .get, headers: [:], body: nil)
            #expect(response.status == .unauthorized && response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(try await call(client, "/api/v1/users", token: "kpt_not-one").0 == 401)
            let brief = try await token(harness, "brief", [.read], expires: harness.clock.now.addingTimeInterval(3_600))
            #expect(try await call(client, "/api/v1/token", token: brief).0 == 200)
            harness.clock.advance(3_601)
            let (expired, said) = try await call(client, "/api/v1/token", token: brief)
            #expect(expired == 401 && said["error"] as? String == "token brief has expired")
            let kept = try await token(harness, "kept", [.read])
            let changes = AdministratorChanges(store: harness.under.store, by: .commandLine(["USER": "test"]), now: { harness.clock.now })
            try await APITokenAdministration(store: harness.under.tokens, changes: changes).revoke(name: "kept", now: harness.clock.now)
            let (revoked, why) = try await call(client, "/api/v1/token", token: kept)
            #expect(revoked == 401 && why["error"] as? String == "token kept was revoked")
            await #expect(throws: APITokenProblem.self, "a name is not reused") { _ = try await token(harness, "kept", [.read]) }
            await #expect(throws: APITokenProblem.self, "nor revoked twice") {
                try await APITokenAdministration(store: harness.under.tokens, changes: changes).revoke(name: "kept")
            }
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aChangeNeedsItsScopeAndIsAuditedUnderTheToken(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await addUsers(harness, ["ana", "ben"])
            let reader = try await token(harness, "reader", [.read])
            let (forbidden, said) = try await call(client, "/api/v1/users/ana/disable", .post, token: reader)
            #expect(forbidden == 403 && said["scope"] as? String == "users" && said["permission"] as? String == "users.change")
            #expect((said["error"] as? String) == "token reader lacks the users scope (it has read): users.change needs it")
            let sync = try await token(harness, "hr-sync", [.users])
            #expect(try await call(client, "/api/v1/users/ana/disable", .post, token: sync).0 == 200)
            #expect(try await call(client, "/api/v1/users/ana", token: sync).1["enabled"] as? Bool == false, "users implies reading")
            #expect(try await call(client, "/api/v1/users/ben", .delete, token: sync).0 == 200)
            #expect(try await call(client, "/api/v1/users/ben", token: sync).0 == 404)
            let audit = try await harness.under.administration.auditRecords(last: 10).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
            let byToken = audit.filter { $0["admin"] == "token:hr-sync" }
            #expect(byToken.map { $0["action"] ?? "" } == ["user_disable", "user_remove"])
            #expect(byToken.allSatisfy { $0["source"] != nil && $0["source"] != "cli" && $0["time"] != nil })
            #expect(audit.contains { $0["action"] == "token_create" && $0["token"] == "hr-sync" && $0["scopes"] == "users" })
            #expect(!audit.contains { record in record.values.contains { $0.hasPrefix("kpt_") } }, "no token in the audit")
        }
    }

    func create(_ client: any TestClientProtocol, _ body: String, token: String) async throws -> (Int, [String: Any]) {
        let response = try await client.execute(
            uri: "/api/v1/users", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
            body: ByteBuffer(string: body))
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
    }

    /// A user joins through the API with their PIN's hash (never the PIN) and a rule; the
    /// body is read strictly and each refusal names its field; the change is audited.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aUserIsCreatedWithAHashAndARuleNeverAPIN(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let sync = try await token(harness, "hr-sync", [.users])
            let hash = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000).description
            let (created, dana) = try await create(
                client, #"{"name":"dana","pin_hash":"\#(hash)","doors":["front","back"],"staff":true,"valid_until":"2027-06-30"}"#, token: sync)
            #expect(
                created == 201 && dana["doors"] as? [String] == ["back", "front"] && dana["staff"] as? Bool == true && dana["pin"] as? Bool == true,
                "\(created) \(dana)")
            #expect(dana["valid_until"] as? String == "2027-06-30")
            let notes = dana["notes"] as? [String] ?? []
            #expect(notes.count == 2 && notes.allSatisfy { $0.contains("has reported to this site yet") }, "neither door is known: \(notes)")
            let stored = try await harness.under.administration.records().first { $0.name == "dana" }
            #expect(stored?.pinHash.description == hash, "the hash as sent, not a PIN")
            #expect(try await create(client, #"{"name":"dana","pin_hash":"\#(hash)"}"#, token: sync).0 == 409, "a name is not taken twice")
            let refusals: [(String, String)] = [
                (#"{"name":"eve","pin":"2580"}"#, "unknown field pin"),
                (#"{"name":"eve","pin_hash":"2580"}"#, "pin_hash must be a PHC string"),
                (#"{"name":"eve","name":"mallory","pin_hash":"\#(hash)"}"#, "appears twice"),
                (#"{"name":"eve","pin_hash":"\#(hash)","staff":"yes"}"#, "staff must be true or false"),
                (#"{"name":"e ve","pin_hash":"\#(hash)"}"#, "name must be 1-64"),
                (#"{"name":"eve","pin_hash":"\#(hash)","doors":[]}"#, "doors must be a list"),
            ]
            for (body, reason) in refusals {
                let (status, said) = try await create(client, body, token: sync)
                #expect(status == 400 && (said["error"] as? String)?.contains(reason) == true, "\(body): \(status) \(said)")
            }
            let reader = try await token(harness, "reader", [.read])
            #expect(try await create(client, #"{"name":"eve","pin_hash":"\#(hash)"}"#, token: reader).0 == 403)
            #expect(try await harness.under.administration.list().map(\.name) == ["dana"], "nothing refused was stored")
            let audit = try await harness.under.administration.auditRecords(last: 5).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
            #expect(audit.contains { $0["action"] == "user_add" && $0["admin"] == "token:hr-sync" && $0["user"] == "dana" })
            #expect(!audit.contains { $0.values.contains { $0.contains("pbkdf2") } }, "no hash in the audit")
        }
    }

    @Test func eachTokenHasItsOwnRate() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { harness, client in
            let busy = try await token(harness, "busy", [.read])
            let calm = try await token(harness, "calm", [.read])
            var statuses: [Int] = []
            for _ in 0..<101 { statuses.append(try await call(client, "/api/v1/token", token: busy).0) }
            #expect(statuses.prefix(100).allSatisfy { $0 == 200 } && statuses.last == 429, "a burst of 100, then 429")
            let response = try await client.execute(uri: "/api/v1/token", method: .get, headers: [.authorization: "Bearer \(busy)"], body: nil)
            #expect(response.headers[.retryAfter] != nil)
            #expect(try await call(client, "/api/v1/token", token: calm).0 == 200, "another token is not slowed")
        }
    }
}

/// `/api/v1/webhooks` on both stores: added with its secret shown once, listed without it,
/// refused without the webhooks scope, a URL the rule refuses named, removed; audited under
/// the token.
@Suite("Management API: webhooks", .serialized)
struct ManagementAPIWebhookTests {
    let api = ManagementAPITests()

    func send(_ client: any TestClientProtocol, _ path: String, _ method: HTTPRequest.Method, _ body: String?, token: String) async throws -> (
        Int, [String: Any]
    ) {
        let response = try await client.execute(
            uri: path, method: method, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"], body: body.map { ByteBuffer(string: $0) }
        )
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func webhooksAreAddedListedAndRemovedWithinTheirScope(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let hooks = try await api.token(harness, "hooks", [.webhooks])
            let reader = try await api.token(harness, "reader", [.read])
            let body = #"{"name":"chat","url":"https://chat.example/kioskpad","events":["door.alert","door.duress"]}"#
            let (refused, why) = try await send(client, "/api/v1/webhooks", .post, body, token: reader)
            #expect(refused == 403 && why["scope"] as? String == "webhooks")
            let (added, hook) = try await send(client, "/api/v1/webhooks", .post, body, token: hooks)
            #expect(added == 201 && (hook["secret"] as? String)?.hasPrefix("whsec_") == true)
            #expect(hook["events"] as? [String] == ["door.alert", "door.duress"] && hook["created_by"] as? String == "token:hooks")
            let (again, clash) = try await send(client, "/api/v1/webhooks", .post, body, token: hooks)
            #expect(again == 409 && (clash["error"] as? String)?.contains("exists already") == true)
            // The issue's tries: each inside the site's network, refused by default, naming the key.
            for url in ["http://127.0.0.1:5432/", "https://169.254.169.254/", "https://10.0.0.5:22/", "https://192.168.1.1/", "http://10.1.2.3/hook"] {
                let (inside, said) = try await send(client, "/api/v1/webhooks", .post, #"{"name":"lan","url":"\#(url)"}"#, token: hooks)
                #expect(inside == 400 && (said["error"] as? String)?.contains("server.webhooks.allow_targets") == true, "\(url): \(said)")
            }
            let (plainHTTP, http) = try await send(client, "/api/v1/webhooks", .post, #"{"name":"lan","url":"http://chat.example/hook"}"#, token: hooks)
            #expect(plainHTTP == 400 && (http["error"] as? String)?.contains("server.webhooks.allow_http") == true, "\(http)")
            let (byToken, tokenWhy) = try await send(
                client, "/api/v1/webhooks", .post, #"{"name":"lan","url":"https://chat.example/hook","allow_http":true}"#, token: hooks)
            #expect(byToken == 400 && (tokenWhy["error"] as? String)?.contains("config file") == true, "a token cannot widen the policy")
            let (allowed, shownOnce) = try await send(
                client, "/api/v1/webhooks", .post, #"{"name":"lan","url":"https://lan.example/services/T0/SECRETPATH"}"#, token: hooks)
            #expect(allowed == 201 && shownOnce["url"] as? String == "https://lan.example/services/T0/SECRETPATH", "the whole URL, once")
            let (badType, typeWhy) = try await send(
                client, "/api/v1/webhooks", .post, #"{"name":"x","url":"https://x.example","events":["door.opened"]}"#, token: hooks)
            #expect(badType == 400 && (typeWhy["error"] as? String)?.contains("events: door.opened is not an event type") == true)
            let (listed, list) = try await api.call(client, "/api/v1/webhooks", token: reader)
            let names = (list["webhooks"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(listed == 200 && names == ["chat", "lan"])
            #expect((list["webhooks"] as? [[String: Any]])?.allSatisfy { $0["secret"] == nil } == true, "a secret is shown once")
            let urls = (list["webhooks"] as? [[String: Any]])?.compactMap { $0["url"] as? String }
            #expect(urls == ["https://chat.example/…", "https://lan.example/…"], "\(String(describing: urls))")
            // A subscription the site disabled (its receiver failed too long) is listed so and
            // enabled again with the webhooks scope.
            #expect(try await harness.under.webhooks.noteFailure(subscription: "lan", now: Date(), disableIfFailingSince: Date().addingTimeInterval(60)))
            let (_, disabledList) = try await api.call(client, "/api/v1/webhooks", token: reader)
            let lan = (disabledList["webhooks"] as? [[String: Any]])?.first { $0["name"] as? String == "lan" }
            #expect(lan?["disabled"] is String && (disabledList["webhooks"] as? [[String: Any]])?.first?["disabled"] is NSNull, "\(String(describing: lan))")
            let (enableRefused, _) = try await send(client, "/api/v1/webhooks/lan/enable", .post, nil, token: reader)
            let (enabled, enabledBody) = try await send(client, "/api/v1/webhooks/lan/enable", .post, nil, token: hooks)
            let (notDisabled, _) = try await send(client, "/api/v1/webhooks/lan/enable", .post, nil, token: hooks)
            let (noneSuch, _) = try await send(client, "/api/v1/webhooks/nowhere/enable", .post, nil, token: hooks)
            #expect(enableRefused == 403 && enabled == 200 && enabledBody["enabled"] as? Bool == true && notDisabled == 409 && noneSuch == 404)
            let (history, deliveries) = try await api.call(client, "/api/v1/webhooks/chat/deliveries?state=failed", token: reader)
            #expect(history == 200 && (deliveries["deliveries"] as? [Any])?.isEmpty == true)
            let (removed, _) = try await api.call(client, "/api/v1/webhooks/chat", .delete, token: hooks)
            let (gone, _) = try await api.call(client, "/api/v1/webhooks/chat", .delete, token: hooks)
            #expect(removed == 200 && gone == 404)
            let records = try await harness.under.administration.auditRecords(last: 10).joined(separator: "\n")
            #expect(
                records.contains("webhook_add") && records.contains("token:hooks") && records.contains("webhook_remove") && records.contains("webhook_enable"))
            #expect(!records.contains("whsec_"), "never the secret")
            #expect(!records.contains("SECRETPATH"), "nor the URL's path")
        }
    }
}

/// A user's rule changed field by field, cards added and removed, codes issued (shown once),
/// listed and revoked, through the API on both stores; each refused change named.
@Suite("Management API: a user's rule, cards and codes", .serialized)
struct ManagementAPIUserUpdateTests {
    let api = ManagementAPITests()
    let hooks = ManagementAPIWebhookTests()

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aUsersRuleCardsAndCodesAreChangedThroughTheAPI(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ana", "ben"])
            try await harness.under.administration.setSchedule(name: "office", spec: "mon-fri 08:00-18:00")
            let token = try await api.token(harness, "hr", [.users, .codes])
            let reader = try await api.token(harness, "reader", [.read])
            let (changed, ana) = try await hooks.send(
                client, "/api/v1/users/ana", .patch, #"{"doors":["front","back"],"schedule":"office","valid_until":"2027-06-30"}"#, token: token)
            #expect(changed == 200 && ana["doors"] as? [String] == ["back", "front"] && ana["schedule"] as? String == "office")
            let (kept, same) = try await hooks.send(client, "/api/v1/users/ana", .patch, #"{"staff":true}"#, token: token)
            #expect(kept == 200 && same["schedule"] as? String == "office" && same["staff"] as? Bool == true, "fields left out stay")
            let (cleared, all) = try await hooks.send(client, "/api/v1/users/ana", .patch, #"{"doors":null,"valid_until":null,"enabled":false}"#, token: token)
            #expect(cleared == 200 && all["doors"] is NSNull && all["valid_until"] is NSNull && all["enabled"] as? Bool == false)
            let (unknownSchedule, why) = try await hooks.send(client, "/api/v1/users/ana", .patch, #"{"schedule":"nights"}"#, token: token)
            #expect(unknownSchedule == 409 && (why["error"] as? String)?.contains("nights") == true, "\(why)")
            let (badDate, dateWhy) = try await hooks.send(client, "/api/v1/users/ana", .patch, #"{"valid_from":"2027-13-01"}"#, token: token)
            #expect(badDate == 400 && (dateWhy["error"] as? String)?.contains("valid_from") == true, "\(dateWhy)")
            let (nobody, _) = try await hooks.send(client, "/api/v1/users/zed", .patch, #"{"staff":true}"#, token: token)
            #expect(nobody == 404)
            let (readOnly, _) = try await hooks.send(client, "/api/v1/users/ana", .patch, #"{"staff":true}"#, token: reader)
            #expect(readOnly == 403)

            let (added, cards) = try await hooks.send(client, "/api/v1/users/ana/cards", .post, #"{"number":"10048576"}"#, token: token)
            #expect(added == 201 && cards["cards"] as? Int == 1)
            let (badCard, cardWhy) = try await hooks.send(client, "/api/v1/users/ana/cards", .post, #"{"number":"12ab"}"#, token: token)
            #expect(badCard == 400 && (cardWhy["error"] as? String)?.contains("number must be") == true)
            let (removed, none) = try await hooks.send(client, "/api/v1/users/ana/cards/remove", .post, #"{"number":"10048576"}"#, token: token)
            #expect(removed == 200 && none["cards"] as? Int == 0)

            let (issued, code) = try await hooks.send(client, "/api/v1/users/ben/codes", .post, #"{"minutes":60,"door":"front"}"#, token: token)
            let digits = try #require(code["code"] as? String)
            #expect(issued == 201 && digits.count == 8 && code["door"] as? String == "front")
            let codeNotes = code["notes"] as? [String] ?? []
            #expect(codeNotes.count == 1 && codeNotes[0].contains("no door 'front' has reported"), "front is unknown: \(codeNotes)")
            let (enrolled, enrolment) = try await hooks.send(client, "/api/v1/users/ben/enrolment-code", .post, #"{"hours":24}"#, token: token)
            #expect(enrolled == 201 && (enrolment["code"] as? String)?.isEmpty == false)
            let (tooLong, _) = try await hooks.send(client, "/api/v1/users/ben/codes", .post, #"{"minutes":10081}"#, token: token)
            #expect(tooLong == 400)
            let (listed, list) = try await api.call(client, "/api/v1/codes", token: reader)
            let codes = try #require(list["codes"] as? [[String: Any]])
            #expect(listed == 200 && codes.compactMap { $0["purpose"] as? String }.sorted() == ["enrolment", "entry"])
            #expect(!String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self).contains(digits), "a code is shown once")
            let entry = try #require(codes.first { $0["purpose"] as? String == "entry" }?["id"] as? Int)
            let (revoked, _) = try await api.call(client, "/api/v1/codes/\(entry)", .delete, token: token)
            let (again, _) = try await api.call(client, "/api/v1/codes/\(entry)", .delete, token: token)
            #expect(revoked == 200 && again == 404)
            let records = try await harness.under.administration.auditRecords(last: 20).joined(separator: "\n")
            #expect(records.contains("user_rule") && records.contains("card_add") && records.contains("code_issue") && records.contains("code_revoke"))
            #expect(!records.contains(digits) && !records.contains("10048576"), "never a code or a card number")
        }
    }
}

/// `GET /api/v1/audit` on both stores: records after a cursor, oldest first, none skipped or
/// repeated page to page, filtered by kind, door, user and decision.
@Suite("Management API: the audit feed", .serialized)
struct ManagementAPIAuditFeedTests {
    let api = ManagementAPITests()

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theAuditIsFollowedWithACursorWithoutGapsOrRepeats(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let token = try await api.token(harness, "feed", [.read])
            let decided = { (door: String, user: String, decision: String) in
                [("time", "2027-01-15T08:00:00.000Z"), ("terminal_id", door), ("kind", "pin"), ("decision", decision), ("user", user)]
            }
            try await harness.under.store.audit(decided("front", "ana", "granted"))
            try await harness.under.store.audit(decided("back", "ben", "denied"))
            try await harness.under.store.audit([("time", "2027-01-15T08:01:00.000Z"), ("admin", "cli:test"), ("action", "user_disable"), ("user", "ana")])
            try await harness.under.store.audit(decided("front", "ben", "granted"))
            var seen: [Int] = []
            var after = 0
            for _ in 0..<10 {
                let (status, page) = try await api.call(client, "/api/v1/audit?after=\(after)&limit=2", token: token)
                #expect(status == 200)
                let ids = (page["records"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } ?? []
                if ids.isEmpty { break }
                seen += ids
                after = try #require(page["next"] as? Int)
            }
            // The token's own creation is the first record (an administrator's change).
            #expect(seen.count == 5 && seen == seen.sorted() && Set(seen).count == 5, "\(seen)")
            let users = { (query: String) async throws -> [String] in
                let (_, page) = try await api.call(client, "/api/v1/audit?\(query)", token: token)
                return (page["records"] as? [[String: Any]])?.compactMap { ($0["record"] as? [String: Any])?["user"] as? String } ?? []
            }
            #expect(try await users("kind=decision") == ["ana", "ben", "ben"])
            #expect(try await users("kind=change&user=ana") == ["ana"])
            #expect(try await users("kind=decision&door=front&decision=granted") == ["ana", "ben"])
            #expect(try await users("after=\(seen[4])").isEmpty, "nothing after the last")
            let (bad, why) = try await api.call(client, "/api/v1/audit?kind=entries", token: token)
            #expect(bad == 400 && (why["error"] as? String)?.contains("kind must be") == true)
        }
    }
}
