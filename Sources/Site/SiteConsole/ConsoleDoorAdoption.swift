import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// The Doors page's waiting list and its form: the doors that announced themselves
/// (`kioskpad pair`), by the public first four digits of their code, and adopting the one
/// whose code the administrator reads on it, through ``DoorAdoption`` (as `verifier terminal
/// adopt` does).
extension ConsoleHandler {
    func waitingRows() async throws -> [[String: Any]] {
        let zone = try await siteZone()
        return try await services.administration.waitingDoors(now: services.now()).map { door in
            [
                "tag": door.tag, "address": door.address, "hardware": door.hardware.isEmpty ? "-" : door.hardware,
                "since": ConsoleTime.local(door.announced, zone),
                "state": door.state == .waiting ? "waiting for its code" : "sealed for \(door.terminalID ?? "")",
            ]
        }
    }

    func adoptDoor(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let code = form.text("code").flatMap(PairingCode.init(typed:)) else {
            return ConsoleResponse.message(
                "code: type the twelve digits the door shows (SSSS-XXXX-XXXX).", title: "Not adopted", status: .badRequest, visit: visit,
                link: "/console/doors")
        }
        guard let replica = services.replica else {
            return ConsoleResponse.message(
                "This console has no replica key to give doors.", title: "Not adopted", status: .serviceUnavailable, visit: visit, link: "/console/doors")
        }
        do {
            try await DoorAdoption(pairing: services.administration, changes: changes(visit), replicaPublicKey: try await replica.publicKey().description)
                .adopt(code: code, terminalID: form.text("name") ?? "", now: services.now())
        } catch let refusal as PairingRefusal {
            return ConsoleResponse.message(
                refusal.description, title: "Not adopted", status: HTTPResponse.Status(code: refusal.status), visit: visit, link: "/console/doors")
        }
        return ConsoleResponse.redirect("/console/doors?done=adopted")
    }
}
