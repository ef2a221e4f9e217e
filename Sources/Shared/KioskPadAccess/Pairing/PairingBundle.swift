import Foundation

/// What a delivery carries to the door, sealed (``PairingSeal``): its name at the site, its
/// own signing secret and the key that signs its credential replicas.
public struct PairingBundle: Sendable, Equatable, Codable {
    public let terminalID: String
    public let secret: String
    public let replicaPublicKey: String

    enum CodingKeys: String, CodingKey {
        case terminalID = "terminal_id"
        case secret
        case replicaPublicKey = "replica_public_key"
    }

    public init(terminalID: String, secret: String, replicaPublicKey: String) {
        self.terminalID = terminalID
        self.secret = secret
        self.replicaPublicKey = replicaPublicKey
    }
}
