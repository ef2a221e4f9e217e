import Foundation
import KioskPadCore

#if canImport(Glibc)
    import Glibc
#endif

/// Who may open the verifier's SQLite file. A command run as root against a database that
/// belongs to the service user would leave root-owned `-wal` and `-shm` files behind, and
/// the service could no longer open its own database. So a process running as root that
/// opens a file (or, before the file exists, a directory) owned by another user first
/// becomes that user; when it cannot, it stops with an error that names `sudo -u OWNER`.
public enum DatabaseOwner {
    /// Becomes the owner of `path` (or of the nearest directory above it that exists) when
    /// this process is root and they differ. Does nothing otherwise.
    public static func become(ownerOf path: String) throws {
        guard geteuid() == 0 else { return }
        var status = stat()
        var probe = path
        while stat(probe, &status) != 0 {
            let parent = (probe as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != probe else { return }
            probe = parent
        }
        guard status.st_uid != 0 else { return }
        let name = getpwuid(status.st_uid).map { String(cString: $0.pointee.pw_name) } ?? String(status.st_uid)
        // The group first: once the user is not root it may no longer change its group.
        guard setgroups(0, nil) == 0, setgid(status.st_gid) == 0, setuid(status.st_uid) == 0 else {
            throw KeyedError(
                key: "server.sqlite.path",
                message: "\(probe) belongs to \(name), and this command could not become \(name) (\(String(cString: strerror(errno))))",
                fix: "run it as that user: sudo -u \(name) kioskpad verifier ...", kind: .unavailable(retryable: false))
        }
    }
}
