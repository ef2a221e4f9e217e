import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// A user's edit page, cards held to a reader: "add a card at door X" arms the door for two
/// minutes (the page says what came of it when reloaded), and the cards read lately that
/// matched nobody can be given to the user. Never a card number.
extension ConsoleHandler {
    /// What the edit page shows of `name`'s card learning and the unknown cards.
    func cardLearningData(_ name: String) async throws -> [String: Any] {
        let now = services.now()
        let zone = try await siteZone()
        let arms: [[String: Any]] = try await services.administration.cardLearning(user: name).prefix(5).map { arm in
            ["door": arm.door, "armed": ConsoleTime.local(arm.armed, zone), "until": ConsoleTime.local(arm.expires, zone), "state": arm.state(at: now)]
        }
        let unknown: [[String: Any]] = try await services.administration.unknownCards(since: now.addingTimeInterval(-CardLearning.unknownKeptSeconds)).map {
            ["id": String($0.id), "door": $0.door, "seen": ConsoleTime.local($0.seen, zone), "digits": String($0.digits)]
        }
        return ["arms": arms, "unknownCards": unknown]
    }

    func learnCard(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name"), UsersFile.isValidName(name) else {
            return try await renderUsers(visit, query: nil, page: 1, error: "Adding a card needs a user name.", status: .badRequest)
        }
        do {
            let arm = try await CardLearningChanges(administration: services.administration, changes: changes(visit)).arm(
                door: form.text("door") ?? "", user: name, now: services.now())
            let until = ConsoleTime.local(arm.expires, try await siteZone())
            return try await renderEdit(visit, name: name, notice: "\(arm.door) is armed until \(until): hold the card to its reader, then reload this page.")
        } catch let error as UserEditError {
            return try await renderEdit(visit, name: name, error: "\(error.description). No door was armed.", status: .badRequest)
        }
    }

    func claimCard(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name"), UsersFile.isValidName(name) else {
            return try await renderUsers(visit, query: nil, page: 1, error: "Giving a card needs a user name.", status: .badRequest)
        }
        do {
            guard let id = Int64(form.text("id") ?? "") else { throw UserEditError(description: "unknown_card: give an unknown card's id") }
            try await CardLearningChanges(administration: services.administration, changes: changes(visit)).claim(id: id, user: name)
        } catch let error as UserEditError {
            return try await renderEdit(visit, name: name, error: "\(error.description). Nothing was changed.", status: .notFound)
        }
        return try await renderEdit(visit, name: name, notice: "The card is now \(name)'s.")
    }
}
