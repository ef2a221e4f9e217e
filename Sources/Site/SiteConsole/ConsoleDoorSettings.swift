import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// The Doors page's settings: what the site gives its adopted doors (the site's, and each
/// door's own on top), a form that sets and removes them through ``DoorSettingsEditing`` (as
/// `verifier settings set|unset` does), and what each door said at its check-in: the
/// version it runs, or the one it refused and its config checker's words.
extension ConsoleHandler {
    func settingsRows() async throws -> (version: Int64, rows: [[String: Any]]) {
        let (version, byScope) = try await services.administration.allSettings()
        let scopes = [DoorSettings.siteScope] + (try await services.administration.doors()).filter { $0.standing != .retired }.map(\.terminalID)
        let rows: [[String: Any]] = scopes.flatMap { scope in
            let settings = byScope[scope] ?? DoorSettings()
            return settings.values.keys.sorted().map { key in
                ["scope": scope == DoorSettings.siteScope ? "site" : scope, "key": key, "value": settings.values[key]!.shown] as [String: Any]
            }
        }
        return (version, rows)
    }

    /// What `door` said of its settings, for the door secrets table.
    static func settingsReport(_ state: DoorSettingsState?) -> String {
        guard let state else { return "not reported" }
        let running = state.running == 0 ? "none from the site" : "runs version \(state.running)"
        return state.refused.map { "\(running); refused version \($0.version): \($0.reason)" } ?? running
    }

    func changeSettings(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let scope = form.text("scope") ?? "site"
        let lines = { (name: String) in
            (form.text(name) ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        do {
            try await DoorSettingsEditing(administration: services.administration, changes: changes(visit)).change(
                door: scope == "site" ? nil : scope, set: lines("set"), remove: lines("remove"))
        } catch let error as UserEditError {
            return ConsoleResponse.message(error.description, title: "Settings not changed", status: .badRequest, visit: visit, link: "/console/doors")
        }
        return ConsoleResponse.redirect("/console/doors?done=settings")
    }
}
