import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints

/// A door that announced itself to be adopted (`POST /v1/pair`), as the site keeps it until
/// it is adopted, its time runs out or too many deliveries failed to open.
public struct WaitingDoor: Sendable, Equatable {
    /// Where it stands.
    public enum State: String, Sendable {
        /// Announced; no code typed yet (or the last delivery did not open).
        case waiting
        /// A code was typed and the door's secrets sealed for it; the door has not said yet
        /// that it opened them.
        case delivered
        /// The door opened the delivery and signed with its new secret.
        case paired
    }

    /// The announcement's id (a UUID): the door polls `/v1/pair/{id}`.
    public let id: String
    /// The door's X25519 public key, raw (32 bytes).
    public let doorKey: Data
    /// The random nonce the site gave the announcement.
    public let nonce: Data
    /// The door's pairing-exchange message (CPace's MSGa) and session id, as it announced
    /// them (``PairingExchange``).
    public let pakeMessage: Data
    public let pakeSID: Data
    /// The door's Ed25519 public key for this announcement: its result messages are signed
    /// with it (``PairingResultSignature``), so nobody else can end a delivery.
    public let resultKey: Data
    /// The code's first four digits (``PairingCode/tag(doorKey:nonce:)``).
    public let tag: String
    /// The address it announced from.
    public let address: String
    /// What the door says it has (keypad, display), as it sent it.
    public let hardware: String
    public let announced: Date
    public let expires: Date
    public var state: State
    /// The name it was adopted as, once a code was typed.
    public var terminalID: String?
    /// Deliveries the door could not open (a mistyped code).
    public var failures: Int

    public init(
        id: String, doorKey: Data, nonce: Data, pakeMessage: Data, pakeSID: Data, resultKey: Data, tag: String, address: String,
        hardware: String, announced: Date, expires: Date, state: State = .waiting, terminalID: String? = nil, failures: Int = 0
    ) {
        self.id = id
        self.doorKey = doorKey
        self.nonce = nonce
        self.pakeMessage = pakeMessage
        self.pakeSID = pakeSID
        self.resultKey = resultKey
        self.tag = tag
        self.address = address
        self.hardware = hardware
        self.announced = announced
        self.expires = expires
        self.state = state
        self.terminalID = terminalID
        self.failures = failures
    }
}

/// The limits of the waiting list: how long an announcement waits, how many wait, how many
/// deliveries may fail to open.
public enum DoorPairing {
    /// An announcement waits 15 minutes for its code.
    public static let waitingSeconds: TimeInterval = 900
    /// At most 256 doors wait at once, 4 from one address (an IPv6 address's /64 counts as
    /// one), so a handful of addresses cannot fill the list (issue 78).
    public static let maxWaiting = 256
    public static let maxWaitingPerAddress = 4
    /// After 3 deliveries that did not open, the announcement is dropped (the door starts over
    /// with a new key and code); the door gives up on it after as many.
    public static let maxFailures = PairingExchange.maxFailedExchanges

    /// What the per-address limit counts `address` as: an IPv4 address itself, an IPv6
    /// address its /64 (one host can take a whole /64); anything else as it is.
    public static func addressGroup(_ address: String) -> String {
        guard case .v6(let bytes)? = IPAddress(literal: address) else { return address }
        return IPAddress.v6(Array(bytes.prefix(8)) + [UInt8](repeating: 0, count: 8)).description + "/64"
    }
}

/// A pairing request or step the site refused; the text says why, never a code.
public struct PairingRefusal: Error, Equatable, CustomStringConvertible {
    public let description: String
    /// The HTTP status a door is answered with (400, 404, 409, 429).
    public let status: Int

    public init(_ description: String, status: Int = 400) {
        self.description = description
        self.status = status
    }
}

/// What a site keeps of doors waiting to be adopted (SQLite and PostgreSQL alike).
public protocol DoorPairingStore: Sendable {
    /// Keeps `door` as waiting, after dropping expired ones; a ``PairingRefusal`` (429) when
    /// ``DoorPairing/maxWaiting`` doors wait, or ``DoorPairing/maxWaitingPerAddress`` from its
    /// address's group (``DoorPairing/addressGroup(_:)``); 409 when its key waits already (a
    /// door makes a new key for every announcement).
    func announceDoor(_ door: WaitingDoor, now: Date) async throws
    /// The doors waiting or delivered and not expired, oldest first.
    func waitingDoors(now: Date) async throws -> [WaitingDoor]
    /// One announcement (not expired) and its sealed delivery, if a code was typed.
    func pairing(id: String, now: Date) async throws -> (WaitingDoor, PairingSeal.Sealed?)?
    /// Stores the delivery for `id` (waiting, not expired) as `terminalID`'s and gives that door
    /// its own `secret`, in one transaction; a ``PairingRefusal`` when the name is a door's
    /// already or the announcement is gone.
    func deliverPairing(id: String, terminalID: String, sealed: PairingSeal.Sealed, secret: WebhookSecret, now: Date) async throws
    /// The door could not open its delivery: the secret given is taken back, the delivery
    /// dropped, the failure counted; at ``DoorPairing/maxFailures`` the announcement goes.
    /// Returns the failures so far.
    func pairingNotOpened(id: String) async throws -> Int
    /// The door opened its delivery (it signed with its new secret): paired.
    func pairingOpened(id: String) async throws
}

/// Adopts a waiting door: the one core the command line (and later the console and the API)
/// goes through, with one audit record (`door_adopt`: the name, the code's tag, the address).
public struct DoorAdoption: Sendable {
    let pairing: any DoorPairingStore
    let changes: AdministratorChanges
    let replicaPublicKey: String

    public init(pairing: any DoorPairingStore, changes: AdministratorChanges, replicaPublicKey: String) {
        self.pairing = pairing
        self.changes = changes
        self.replicaPublicKey = replicaPublicKey
    }

    /// Finds the waiting door whose tag the code starts with, makes its secret, runs the site's
    /// half of the pairing exchange on the code's secret digits and seals the bundle with it. Refused, naming what: a name that is not an
    /// identifier, no waiting door with that tag, or two (one is not the installer's door).
    @discardableResult
    public func adopt(code: PairingCode, terminalID: String, now: Date = Date()) async throws -> WaitingDoor {
        guard Identifier.isValid(terminalID) else {
            throw PairingRefusal("name: '\(terminalID)' must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        let matching = try await pairing.waitingDoors(now: now).filter { $0.state == .waiting && $0.tag == code.tag }
        guard let door = matching.first else {
            throw PairingRefusal("code: no door waiting shows a code starting \(code.tag) (check the door's display; a code lasts 15 minutes)", status: 404)
        }
        guard matching.count == 1 else {
            throw PairingRefusal(
                "code: \(matching.count) waiting doors show a code starting \(code.tag); at most one of them is the door in front of you, so none is adopted: restart pairing at the door (a new code)",
                status: 409)
        }
        let secret = WebhookSecret.generate()
        let bundle = try JSONEncoder().encode(PairingBundle(terminalID: terminalID, secret: secret.text, replicaPublicKey: replicaPublicKey))
        let sealed: PairingSeal.Sealed
        do {
            sealed = try PairingSeal.seal(
                bundle, doorKey: door.doorKey, doorMessage: door.pakeMessage, sid: door.pakeSID, secret: code.secret, announcement: door.id,
                nonce: door.nonce)
        } catch CPace.Failure.invalidShare {
            throw PairingRefusal(
                "code: the waiting door's pairing message is not valid, so none is adopted: restart pairing at the door (a new code)", status: 409)
        }
        try await changes.apply(.doorAdopt, [("terminal_id", terminalID), ("pairing_tag", door.tag), ("address", door.address)]) {
            try await pairing.deliverPairing(id: door.id, terminalID: terminalID, sealed: sealed, secret: secret, now: now)
        }
        var delivered = door
        delivered.state = .delivered
        delivered.terminalID = terminalID
        return delivered
    }
}
