import Foundation
import HTTPTypes
import Hummingbird
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import NIOCore
import SiteCore

/// The doors' side of adoption (docs/architecture.md, "Adopting a door"): an unpaired door
/// announces its public key and its half of the pairing exchange (`POST /v1/pair`), polls its announcement for the sealed delivery
/// (`GET /v1/pair/{id}`), and says whether it opened it (`POST /v1/pair/{id}/result`, signed with
/// the Ed25519 key it announced; `opened` also with the secret it received). Nothing here is a secret in clear:
/// the delivery is sealed to the door's key with the code only it and the administrator saw.
struct PairingRoutes: Sendable {
    let pairing: any DoorPairingStore
    let doorSecrets: any VerifierStore
    let now: @Sendable () -> Date

    /// How often a door polls its announcement.
    static let pollSeconds = 2
    static let maxBody = 2_048

    func add(to router: Router<VerifierRequestContext>) {
        router.post("/v1/pair") { request, context -> Response in
            await self.answer { try await self.announce(request, address: context.clientAddress) }
        }
        router.get("/v1/pair/:id") { _, context -> Response in
            await self.answer { try await self.poll(context.parameters.get("id") ?? "") }
        }
        router.post("/v1/pair/:id/result") { request, context -> Response in
            await self.answer { try await self.result(request, id: context.parameters.get("id") ?? "") }
        }
    }

    private func answer(_ body: () async throws -> (Int, String)) async -> Response {
        do {
            let (status, text) = try await body()
            return VerifierServer.json(status, text)
        } catch let refusal as PairingRefusal {
            return VerifierServer.json(refusal.status, "{\"error\":\(VerificationRequestBody.jsonString(refusal.description))}")
        } catch {
            return VerifierServer.json(503, "{\"error\":\"the site could not store the pairing; try again\"}")
        }
    }

    private func bodyObject(_ request: Request) async throws -> (bytes: [UInt8], object: [String: Any]) {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maxBody)
        } catch {
            throw PairingRefusal("body: more than \(Self.maxBody) bytes", status: 413)
        }
        let bytes = Array(buffer.readableBytesView)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            throw PairingRefusal("body: must be a JSON object")
        }
        return (bytes, object)
    }

    func announce(_ request: Request, address: String) async throws -> (Int, String) {
        let (_, object) = try await bodyObject(request)
        guard let keyText = object["door_key"] as? String, let key = Data(base64Encoded: keyText), key.count == 32 else {
            throw PairingRefusal("door_key: must be base64 of the door's 32-byte X25519 public key")
        }
        let pakeMessage = (object["pake_message"] as? String).flatMap { Data(base64Encoded: $0) } ?? Data()
        let pakeSID = (object["pake_sid"] as? String).flatMap { Data(base64Encoded: $0) } ?? Data()
        if let problem = PairingExchange.announcementProblem(message: pakeMessage, sid: pakeSID) {
            throw PairingRefusal(problem + " (a door older than this site pairs after an upgrade)")
        }
        guard let resultKey = (object["result_key"] as? String).flatMap({ Data(base64Encoded: $0) }), resultKey.count == 32 else {
            throw PairingRefusal("result_key: must be base64 of the door's 32-byte Ed25519 public key for this announcement")
        }
        let hardware = (object["hardware"] as? String) ?? ""
        guard PairingHardware.isSummary(hardware) else {
            throw PairingRefusal("hardware: one line of at most \(PairingHardware.maxBytes) bytes, no control characters")
        }
        var generator = SystemRandomNumberGenerator()
        let nonce = Data((0..<16).map { _ in generator.next() as UInt8 })
        let now = self.now()
        let door = WaitingDoor(
            id: UUID().uuidString.lowercased(), doorKey: key, nonce: nonce, pakeMessage: pakeMessage, pakeSID: pakeSID, resultKey: resultKey,
            tag: PairingCode.tag(doorKey: key, nonce: nonce),
            address: address, hardware: hardware, announced: now, expires: now.addingTimeInterval(DoorPairing.waitingSeconds))
        try await pairing.announceDoor(door, now: now)
        return (
            201,
            """
            {"id":"\(door.id)","nonce":"\(nonce.base64EncodedString())","expires":"\(UTCTimestamp.rfc3339(door.expires))","poll_s":\(Self.pollSeconds)}
            """
        )
    }

    func poll(_ id: String) async throws -> (Int, String) {
        guard let (door, sealed) = try await pairing.pairing(id: id, now: now()) else {
            throw PairingRefusal("no such announcement (it ran out, failed too often, or never was): announce again", status: 404)
        }
        guard let sealed, door.state == .delivered else { return (200, "{\"state\":\"\(door.state.rawValue)\"}") }
        return (
            200,
            """
            {"state":"delivered","sealed":{"pake_message":"\(sealed.siteMessage)","encapsulated_key":"\(sealed.encapsulatedKey)","ciphertext":"\(sealed.ciphertext)"}}
            """
        )
    }

    func result(_ request: Request, id: String) async throws -> (Int, String) {
        let (bytes, object) = try await bodyObject(request)
        guard let result = (object["result"] as? String).flatMap(PairingResultSignature.Result.init(rawValue:)) else {
            throw PairingRefusal("result: must be opened or not_opened")
        }
        guard let (door, _) = try await pairing.pairing(id: id, now: now()), door.state == .delivered, let terminal = door.terminalID else {
            throw PairingRefusal("no delivery is waiting for that door", status: 404)
        }
        guard PairingResultSignature.isValid(object["result_signature"] as? String, result: result, announcement: id, resultKey: door.resultKey) else {
            throw PairingRefusal(
                "result_signature: must be base64 of the door's Ed25519 signature of the result, with the result_key it announced", status: 401)
        }
        switch result {
        case .notOpened:
            let failures = try await pairing.pairingNotOpened(id: id)
            return (200, "{\"failures\":\(failures),\"max_failures\":\(DoorPairing.maxFailures)}")
        case .opened:
            guard let secret = try await doorSecrets.doorKey(terminal: terminal).ownSecret else {
                throw PairingRefusal("no delivery is waiting for that door", status: 404)
            }
            let headers = request.headers
            func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
            if let failure = WebhookSignature.verify(
                id: header("webhook-id"), timestamp: header("webhook-timestamp"), signature: header("webhook-signature"), body: bytes, secret: secret,
                now: now())
            {
                throw PairingRefusal("opened: must be signed with the secret the delivery carried (\(failure))", status: 401)
            }
            try await pairing.pairingOpened(id: id)
            return (200, "{\"state\":\"paired\",\"terminal_id\":\"\(terminal)\"}")
        }
    }
}
