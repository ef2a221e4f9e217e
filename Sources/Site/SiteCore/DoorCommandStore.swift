import Foundation
import KioskPadAccess

/// A remote command as the site keeps it (`kioskpad_door_commands`): who asked, why, until
/// when it may still be sent, when the door's push request took it and what the door said.
public struct StoredDoorCommand: Sendable, Equatable {
    public let id: Int64
    public let terminalID: String
    public let action: DoorCommand.Action
    public let seconds: Int?
    public let reason: String
    public let admin: String
    public let issuedAt: Date
    public let expiresAt: Date
    /// When a push request first carried it to the door (nil: not yet).
    public let deliveredAt: Date?
    /// What the door journaled (`unlocked`, `locked`, `refused: lockdown`, ...), once it reported.
    public let result: String?

    public init(
        id: Int64, terminalID: String, action: DoorCommand.Action, seconds: Int?, reason: String, admin: String, issuedAt: Date, expiresAt: Date,
        deliveredAt: Date? = nil, result: String? = nil
    ) {
        self.id = id
        self.terminalID = terminalID
        self.action = action
        self.seconds = seconds
        self.reason = reason
        self.admin = admin
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.deliveredAt = deliveredAt
        self.result = result
    }
}

/// Where remote commands wait for their door (schema version 26). Writing one is an
/// administrator's change (``RemoteDoorCommands``); the push channel reads and marks them.
public protocol DoorCommandStore: Sendable {
    /// Stores a command for `terminal` and returns its number (rising, site-wide).
    func addDoorCommand(
        terminal: String, action: DoorCommand.Action, seconds: Int?, reason: String, admin: String, issuedAt: Date, expiresAt: Date
    ) async throws -> Int64
    /// `terminal`'s commands numbered above `after` that have not expired at `now`, oldest first.
    func liveDoorCommands(terminal: String, after: Int64, now: Date) async throws -> [StoredDoorCommand]
    /// The number and door of every command not expired at `now` (what the push channel's
    /// reader wakes doors for), at most 1,000, oldest first.
    func liveDoorCommandsIssued(now: Date) async throws -> [(id: Int64, terminal: String)]
    /// Notes that `terminal` took its commands up to `through` (first time only).
    func markDoorCommandsDelivered(terminal: String, through: Int64, at: Date) async throws
    /// Keeps the door's word on command `id` (its journal's `remote_command` record).
    func recordDoorCommandResult(terminal: String, id: Int64, result: String) async throws
    /// The newest `limit` commands (of `terminal` only, when given), newest first.
    func recentDoorCommands(terminal: String?, limit: Int) async throws -> [StoredDoorCommand]
}
