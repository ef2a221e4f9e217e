import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// The Users page: search, page through, add (PIN typed twice), disable or enable, remove.
/// The PIN goes straight into a wiped-after-use buffer and a hash; it is never shown,
/// logged or audited.
extension ConsoleHandler {
    static let usersPerPage = 100

    func usersPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let notices = [
            "added": "User added.", "disabled": "User disabled.", "enabled": "User enabled.", "removed": "User removed.",
            "card-added": "Card added.", "card-removed": "Card removed.", "rule": "Doors, schedule, validity, responder and staff saved.",
        ]
        let notice = Self.notice(form["done"].flatMap { notices[$0] }, with: Self.carriedNotes(form))
        return try await renderUsers(visit, query: form.text("q"), page: Int(form["page"] ?? "") ?? 1, notice: notice)
    }

    func renderUsers(_ visit: Visit, query: String?, page: Int, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws
        -> Response
    {
        let site = try await services.administration.siteRules()
        var users = try await services.administration.list()
        if let query { users = users.filter { $0.name.localizedCaseInsensitiveContains(query) } }
        // A user manager limited to door groups sees the users whose access lies within them.
        if visit.session.doorGroups != nil {
            users = users.filter { DoorScopes.reaches(visit.actor, rule: site.rules[$0.name] ?? AccessRule(), site: site) }
        }
        let pages = max(1, (users.count + ConsoleHandler.usersPerPage - 1) / ConsoleHandler.usersPerPage)
        let page = min(max(page, 1), pages)
        let shown = users.dropFirst((page - 1) * ConsoleHandler.usersPerPage).prefix(ConsoleHandler.usersPerPage)
        let rows: [[String: Any]] = shown.map { user in
            let rule = site.rules[user.name] ?? AccessRule()
            var has: [String] = []
            if user.hasPIN { has.append("PIN") }
            if user.hasTOTP { has.append("TOTP") }
            if user.hasDuressPIN { has.append("duress PIN") }
            if user.cards > 0 { has.append("\(user.cards) card\(user.cards == 1 ? "" : "s")") }
            let from = rule.validFrom?.description ?? ""
            let until = rule.validUntil?.description ?? ""
            return [
                "name": user.name, "has": has.joined(separator: ", "), "doors": ConsoleHandler.doorsColumn(rule),
                "schedule": rule.schedule ?? "always", "valid": from.isEmpty && until.isEmpty ? "always" : "\(from) to \(until)",
                "state": (rule.disabled ? "disabled" : "enabled") + (rule.responder ? ", responder" : "") + (rule.staff ? ", staff" : ""),
                "disabled": rule.disabled,
            ]
        }
        let link = { (page: Int) in "/console/users?page=\(page)" + (query.map { "&q=" + FormBody.encode($0) } ?? "") }
        var data: [String: Any] = [
            "users": rows, "query": query ?? "", "schedules": site.schedules.keys.sorted(),
            "shown": users.isEmpty ? "" : "Page \(page) of \(pages) (\(users.count) user\(users.count == 1 ? "" : "s"))",
        ]
        if page > 1 { data["previous"] = link(page - 1) }
        if page < pages { data["next"] = link(page + 1) }
        return ConsoleResponse.page("users", title: "Users", page: "users", visit: visit, data: data, notice: notice, error: error, status: status)
    }

    func addUser(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let name = form.text("name") ?? ""
        guard UsersFile.isValidName(name) else {
            return try await renderUsers(
                visit, query: nil, page: 1, error: "Name “\(name)” is not valid: use 1-64 of letters, digits, '.', '_' or '-'. Nothing was added.",
                status: .badRequest)
        }
        let range = EntryOptions.lengthRange
        guard let pin = SecretDigits(ascii: form["pin"] ?? ""), range.contains(pin.count) else {
            return try await renderUsers(
                visit, query: nil, page: 1, error: "The PIN must be \(range.lowerBound) to \(range.upperBound) digits (0-9). Nothing was added.",
                status: .badRequest)
        }
        guard let again = SecretDigits(ascii: form["pin_again"] ?? ""), pin.hasSameDigits(as: again) else {
            return try await renderUsers(visit, query: nil, page: 1, error: "The two PINs differ. Nothing was added.", status: .badRequest)
        }
        let rule: AccessRule
        do {
            rule = try ConsoleHandler.rule(from: form)
        } catch let error as AccessRule.RuleError {
            return try await renderUsers(visit, query: nil, page: 1, error: "\(error.description). Nothing was added.", status: .badRequest)
        }
        let notes: [ChangeNote]
        do {
            notes = try await users(visit).add(AddUser(name: name, pin: .digits(pin), rule: rule))
        } catch let error as UserEditError {
            return try await renderUsers(visit, query: nil, page: 1, error: "\(error.description). Nothing was added.", status: .conflict)
        }
        return ConsoleResponse.redirect("/console/users?done=added&q=" + FormBody.encode(name) + Self.query(carrying: notes))
    }

    /// A rule from the add form's doors, schedule and validity (empty: all doors, always).
    /// What the users list shows under Doors: own doors, then groups and levels.
    static func doorsColumn(_ rule: AccessRule) -> String {
        var parts: [String] = []
        if rule.hasOwnGrant { parts.append(rule.doors.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? "all") }
        if !rule.groups.isEmpty { parts.append("groups " + rule.groups.joined(separator: ", ")) }
        if !rule.levels.isEmpty { parts.append("levels " + rule.levels.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }

    static func rule(from form: FormBody) throws -> AccessRule {
        var fields: [Substring] = []
        if let doors = form.text("doors") {
            // `none`: no door of their own (what a user left without groups or levels has).
            fields.append(Substring("doors=" + (doors == "none" ? "" : doors.replacingOccurrences(of: " ", with: ""))))
        }
        if let schedule = form.text("schedule"), schedule != "always" { fields.append(Substring("schedule=" + schedule)) }
        for key in ["levels", "groups"] {
            if let names = form.text(key) { fields.append(Substring("\(key)=" + names.replacingOccurrences(of: " ", with: ""))) }
        }
        if let from = form.text("valid_from") { fields.append(Substring("valid_from=" + from)) }
        if let until = form.text("valid_until") { fields.append(Substring("valid_until=" + until)) }
        if form.text("responder") == "yes" { fields.append("responder") }
        if form.text("staff") == "yes" { fields.append("staff") }
        let rule = try AccessRule(fields: fields)
        if let from = rule.validFrom, let until = rule.validUntil, from.start >= until.end {
            throw AccessRule.RuleError(description: "valid from \(from) is not before valid until \(until)")
        }
        return rule
    }

    func setUserState(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name"), let state = form.text("state"), state == "disabled" || state == "enabled" else {
            return try await renderUsers(
                visit, query: nil, page: 1, error: "A state change needs a user name and state disabled or enabled.", status: .badRequest)
        }
        let disabled = state == "disabled"
        do {
            try await users(visit).setDisabled(name, disabled)
        } catch let error as UserEditError {
            return try await renderUsers(visit, query: nil, page: 1, error: error.description, status: .notFound)
        }
        return ConsoleResponse.redirect("/console/users?done=\(state)&q=" + FormBody.encode(name))
    }

    func removeUser(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name") else {
            return try await renderUsers(visit, query: nil, page: 1, error: "Removing needs a user name; nothing was removed.", status: .badRequest)
        }
        do {
            _ = try await users(visit).remove(name)
        } catch let error as UserEditError {
            return try await renderUsers(visit, query: nil, page: 1, error: "\(error.description); nothing was removed.", status: .notFound)
        }
        return ConsoleResponse.redirect("/console/users?done=removed")
    }

    /// A new TOTP secret for a user, shown once as a QR code (libqrencode) and as its key.
    func enrolTOTP(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name"), UsersFile.isValidName(name) else {
            return try await renderUsers(visit, query: nil, page: 1, error: "TOTP needs the name of an existing user.", status: .badRequest)
        }
        let secret = TOTP.newSecret()
        do {
            try await users(visit).setTOTP(of: name, secret: secret)
        } catch let error as UserEditError {
            return try await renderUsers(visit, query: nil, page: 1, error: "\(error.description); no secret was made.", status: .notFound)
        }
        let uri = TOTP(secret: secret).provisioningURI(account: name, issuer: "KioskPad")
        var data: [String: Any] = ["user": name, "key": TOTP.base32Encode(secret)]
        do {
            data["qr"] = try QRCodeImage(encoding: uri).svg
        } catch let error as QRCodeImage.Unavailable {
            data["qrError"] = error.description
        }
        return ConsoleResponse.page("totp-issued", title: "TOTP for \(name)", page: "users", visit: visit, data: data)
    }

    /// Adds or removes a card: its number typed twice, kept only as a hash (and lookup tag).
    func changeCard(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let name = form.text("name") ?? ""
        let range = EntryOptions.lengthRange
        guard UsersFile.isValidName(name), let action = form.text("action"), action == "add" || action == "remove" else {
            return try await renderUsers(visit, query: nil, page: 1, error: "A card change needs a user name and add or remove.", status: .badRequest)
        }
        guard let card = SecretDigits(ascii: form["card"] ?? ""), range.contains(card.count),
            let again = SecretDigits(ascii: form["card_again"] ?? ""),
            card.hasSameDigits(as: again)
        else {
            return try await renderUsers(
                visit, query: nil, page: 1,
                error: "The card number must be \(range.lowerBound) to \(range.upperBound) digits, typed the same twice. Nothing was changed.",
                status: .badRequest)
        }
        do {
            try await CredentialChanges(services: services, changes: changes(visit)).card(action == "add", name: name, card: card)
        } catch let error as UserEditError {
            return try await renderUsers(visit, query: nil, page: 1, error: "\(error.description). Nothing was changed.", status: .notFound)
        }
        return ConsoleResponse.redirect("/console/users?done=card-\(action == "add" ? "added" : "removed")&q=" + FormBody.encode(name))
    }

    /// The form for a user's doors, schedule and validity, filled with what they have now.
    func editUserPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name"), try await services.administration.list().contains(where: { $0.name == name }) else {
            return try await renderUsers(visit, query: nil, page: 1, error: "No such user.", status: .notFound)
        }
        return try await renderEdit(visit, name: name)
    }

    func renderEdit(
        _ visit: Visit, name: String, shown: AccessRule? = nil, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let site = try await services.administration.siteRules()
        try DoorScopes.requireUser(visit.actor, name, site: site)
        let rule = shown ?? site.rules[name] ?? AccessRule()
        var data: [String: Any] = [
            "name": name, "doors": rule.doors.map { $0.isEmpty ? "none" : $0.joined(separator: ",") } ?? "",
            "schedules": site.schedules.keys.sorted().map { ["name": $0, "selected": $0 == rule.schedule] },
            "validFrom": rule.validFrom?.description ?? "", "validUntil": rule.validUntil?.description ?? "", "responder": rule.responder,
            "staff": rule.staff, "levels": rule.levels.joined(separator: ","), "groups": rule.groups.joined(separator: ","),
            "levelNames": site.access.levels.keys.sorted().joined(separator: ", "), "groupNames": site.access.userGroups.keys.sorted().joined(separator: ", "),
        ]
        for (key, value) in try await cardLearningData(name) { data[key] = value }
        return ConsoleResponse.page("user-edit", title: "Edit \(name)", page: "users", visit: visit, data: data, notice: notice, error: error, status: status)
    }

    /// Saves a user's doors, schedule, validity, responder and staff marks (their enabled state is kept).
    func saveUserRule(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name"), UsersFile.isValidName(name) else {
            return try await renderUsers(visit, query: nil, page: 1, error: "Saving needs a user name.", status: .badRequest)
        }
        let wanted: AccessRule
        do {
            wanted = try ConsoleHandler.rule(from: form)
        } catch let error as AccessRule.RuleError {
            return try await renderEdit(visit, name: name, error: "\(error.description). Nothing was saved.", status: .badRequest)
        }
        let notes: [ChangeNote]
        do {
            notes = try await users(visit).changeRule(of: name, .everyPart(of: wanted)).notes
        } catch let error as UserEditError {
            return try await renderEdit(visit, name: name, shown: wanted, error: "\(error.description). Nothing was saved.", status: .conflict)
        }
        return ConsoleResponse.redirect("/console/users?done=rule&q=" + FormBody.encode(name) + Self.query(carrying: notes))
    }
}
