import KioskPadAccess

/// What takes the remote commands (unlock, lock) the site sends on the push channel: the
/// door's runner (DoorServices' `RemoteCommandRunner`) checks each against the replica key,
/// the door's id and the request's nonce, then acts, journals and remembers it.
public protocol RemoteCommandTaker: Sendable {
    /// The number of the last command this door took (kept across restarts), 0 for none.
    func lastTaken() async -> Int64
    /// Checks and acts on `commands`, which came in the answer to the request that carried `nonce`.
    func take(_ commands: [SignedDoorCommand], nonce: String) async
    /// Whether `statement` is the site's word, signed for this door and `nonce`, that the door
    /// is retired; journaled either way. The caller then stops the door deciding offline.
    func retired(_ statement: SignedDoorCommand, nonce: String) async -> Bool
}
