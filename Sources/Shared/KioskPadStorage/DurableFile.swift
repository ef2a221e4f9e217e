import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A state file that could not be used: which file, what was being done, why, and the fix.
public struct StateFileError: Error, CustomStringConvertible {
    public let path: String
    public let doing: String
    public let errno: Int32

    public init(path: String, doing: String, errno: Int32) {
        self.path = path
        self.doing = doing
        self.errno = errno
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        let directory = (path as NSString).deletingLastPathComponent
        let fix: String
        switch errno {
        case EACCES, EPERM, EROFS:
            fix = "the verifier and `kioskpad verifier code issue` must run as the same user, who owns \(directory) (check with ls -ld \(directory))"
        case ENOENT:
            fix = "\(directory) does not exist: create it (mode 0700) or start `kioskpad verifier serve` once, which creates it"
        case ENOSPC:
            fix = "the disk is full"
        default:
            fix = "check \(directory)"
        }
        return "cannot \(doing) \(path): \(reason); \(fix)"
    }
}

/// Writes files so that a crash leaves either the old or the new contents: a unique
/// temporary file beside it (several processes may write at once), fsync, rename, and an
/// fsync of the directory so the rename itself survives a power cut.
public enum DurableFile {
    /// `mode` and `owner` (uid, gid) are given to the new file before it replaces the old
    /// (an edit keeps the users file readable by the verifier's own account). With `flush`
    /// false neither the file nor the directory is fsynced: a crash still never shows half a
    /// file to a reader, but a power cut may lose the change or leave the file empty. Only
    /// for files whose loss is safe and that are rewritten often (an SD card's wear).
    public static func replace(path: String, contents: [UInt8], mode: mode_t = 0o600, owner: (uid: uid_t, gid: gid_t)? = nil, flush: Bool = true) throws {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw StateFileError(path: path, doing: "write", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(temporary) }
        }
        guard fchmod(fd, mode) == 0 else { throw StateFileError(path: temporary, doing: "write", errno: errno) }
        if let owner, owner.uid != geteuid() || owner.gid != getegid() {
            guard fchown(fd, owner.uid, owner.gid) == 0 else { throw StateFileError(path: temporary, doing: "give the owner of", errno: errno) }
        }
        try contents.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { break }
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw StateFileError(path: temporary, doing: "write", errno: errno) }
                offset += written
            }
        }
        guard !flush || fsync(fd) == 0 else { throw StateFileError(path: temporary, doing: "write", errno: errno) }
        guard rename(temporary, path) == 0 else { throw StateFileError(path: path, doing: "replace", errno: errno) }
        ok = true
        guard flush else { return }
        let directory = open(
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// Removes `path` (already gone is no error) and fsyncs its directory, so a power cut
    /// cannot bring the file back.
    public static func remove(path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw StateFileError(path: path, doing: "remove", errno: errno) }
        let parent = (path as NSString).deletingLastPathComponent
        let directory = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
