import Foundation
import KioskPadAccess

/// The console's administrators' own accounts, added, removed and given or relieved of a
/// TOTP secret, each with its audit record (`admin_add`, `admin_remove`, `admin_totp`,
/// `admin_totp_remove`: the name, never a password or secret) and change-log entry in one
/// transaction. The password arrives hashed (``PINHash/make(password:iterations:)``).
public struct AdministratorAccounts: Sendable {
    let console: any ConsoleStore
    let changes: AdministratorChanges
    /// Where the accounts are, for a refusal (the database's file or URL).
    let location: String

    public init(console: any ConsoleStore, changes: AdministratorChanges, location: String) {
        self.console = console
        self.changes = changes
        self.location = location
    }

    /// Adds administrator `name` with the password hashed as `hash`; refused when they exist.
    public func add(_ name: String, hash: PINHash) async throws {
        let (console, location) = (self.console, self.location)
        try await changes.apply(.adminAdd, [("administrator", name)]) {
            guard try await console.addAdmin(name: name, hash: hash) else {
                throw UserEditError(
                    description: "administrator '\(name)' is already in \(location); `kioskpad verifier admin remove \(name)` first to replace them")
            }
        }
    }

    /// Removes administrator `name`; refused when there is none.
    public func remove(_ name: String) async throws {
        let (console, location) = (self.console, self.location)
        try await changes.apply(.adminRemove, [("administrator", name)]) {
            guard try await console.removeAdmin(name: name) else { throw UserEditError(description: "no administrator '\(name)' in \(location)") }
        }
    }

    /// Gives administrator `name` the TOTP secret `secret`, or (nil) takes theirs away.
    public func setTOTP(_ name: String, secret: [UInt8]?) async throws {
        let (console, location) = (self.console, self.location)
        try await changes.apply(secret == nil ? .adminTOTPRemove : .adminTOTP, [("administrator", name)]) {
            guard try await console.setAdminTOTP(name: name, secret: secret) else {
                throw UserEditError(description: "no administrator '\(name)' in \(location)")
            }
        }
    }
}
