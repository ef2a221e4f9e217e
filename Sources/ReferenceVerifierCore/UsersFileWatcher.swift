import Foundation
import KeypadVerifier
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The reference verifier's users file, read again whenever it changes (a `kioskpad
/// verifier user` edit or a replaced file: another inode, size or modification time), so
/// users are added and removed without a restart. One `stat` per attempt. A file that no
/// longer reads or parses is an error for every attempt until it is fixed (the terminal
/// shows `Verifier unavailable`): never the old list, which may still hold a removed user.
public final class UsersFileWatcher: Sendable {
    public let path: String
    private struct Identity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int64
    }
    private let state: Mutex<(identity: Identity?, users: UsersFile?)>

    /// Reads the file once now, so a broken file stops the server at start.
    public init(path: String) throws {
        self.path = path
        state = Mutex((nil, nil))
        _ = try current()
    }

    /// The users as the file says now.
    public func current() throws -> UsersFile {
        var status = stat()
        guard stat(path, &status) == 0 else {
            state.withLock { $0 = (nil, nil) }
            return try UsersFile.load(path: path)  // throws why it cannot be read (or reads a file that just came back)
        }
        let identity = Identity(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
        if let users = state.withLock({ $0.identity == identity ? $0.users : nil }) { return users }
        do {
            let users = try UsersFile.load(path: path)
            state.withLock { $0 = (identity, users) }
            return users
        } catch {
            state.withLock { $0 = (nil, nil) }
            throw error
        }
    }
}
