import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the door's state directory (`state_dir`: the journal, the offline replica, the
/// events forwarder's position) can be written, and keeps what is written across a reboot,
/// for `config check --with-files`. A directory not made yet is judged by the nearest one
/// above it that exists (`run` makes the rest).
public enum StateDirectoryCheck {
    /// What a file system keeps across a reboot.
    public enum Storage: Equatable, Sendable {
        /// A disk (SD card, USB drive, ...): kept.
        case disk
        /// RAM (tmpfs, ramfs): gone at the next boot.
        case memory(String)
        /// overlayfs, as under Raspberry Pi OS's read-only root, whose changes live in RAM.
        case overlay
    }

    /// One thing to tell the installer: an error (`run` would fail) or a warning.
    public struct Finding: Equatable, Sendable {
        public let isError: Bool
        public let text: String
    }

    /// The findings for `path` on this machine (none: writable, on a disk).
    public static func check(_ path: String) -> [Finding] {
        var existing = path
        while !FileManager.default.fileExists(atPath: existing) && existing != "/" {
            existing = (existing as NSString).deletingLastPathComponent
            if existing.isEmpty { existing = "." }
        }
        // A directory that exists must be writable by whoever runs the check (the service
        // user, as the installers run it). One not made yet is made at the first start (by
        // systemd's StateDirectory=, or by `run`): only a read-only file system above it
        // stops that here; a parent the service user cannot write is systemd's to handle.
        let denied = access(existing, W_OK) == 0 ? nil : errno
        let writable = denied == nil || (existing != path && denied != EROFS)
        let reason = denied.map { String(cString: strerror($0)) }
        let mounts = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        let resolved = (existing as NSString).resolvingSymlinksInPath
        let type = fileSystemType(of: resolved.hasPrefix("/") ? resolved : FileManager.default.currentDirectoryPath + "/" + resolved, mountInfo: mounts)
        return findings(
            path: path, checked: existing, writable: writable, reason: reason, readOnlyFileSystem: denied == EROFS,
            storage: storage(ofFileSystemType: type ?? ""))
    }

    /// The findings from what was found (pure).
    static func findings(
        path: String, checked: String, writable: Bool, reason: String?, readOnlyFileSystem: Bool = false, storage: Storage
    ) -> [Finding] {
        var findings: [Finding] = []
        let subject = checked == path ? path : "\(path) (judged by \(checked), the nearest directory that exists)"
        if !writable {
            let fix =
                readOnlyFileSystem
                ? "mount a writable partition at state_dir (docs/raspberry-pi.md, \"A read-only root\")"
                : "give it to the user the door runs as (kioskpad), or name another state_dir"
            findings.append(
                Finding(
                    isError: true,
                    text: "\(subject) cannot be written (\(reason ?? "not writable")): the journal, the offline replica and the events position "
                        + "are kept there; \(fix)"))
        }
        switch storage {
        case .disk:
            break
        case .memory(let kind):
            findings.append(
                Finding(
                    isError: false,
                    text: "\(subject) is in memory (\(kind)): the journal and the offline replica would vanish at the next boot; "
                        + "put state_dir on a disk partition"))
        case .overlay:
            findings.append(
                Finding(
                    isError: false,
                    text: "\(subject) is on an overlay file system (as under Raspberry Pi OS's read-only root, whose changes live in RAM): "
                        + "unless its upper layer is on a disk, the journal would vanish at the next boot; mount a disk partition at state_dir"))
        }
        return findings
    }

    /// The kind of storage behind a file-system type as the kernel names it.
    static func storage(ofFileSystemType type: String) -> Storage {
        switch type {
        case "tmpfs", "ramfs": .memory(type)
        case "overlay": .overlay
        default: .disk
        }
    }

    /// The type of the file system `path` (absolute, symlinks resolved) is on: the mount in
    /// `mountInfo` (`/proc/self/mountinfo`'s text) with the longest mount point that holds
    /// it; the last such mount wins, as the kernel stacks them.
    static func fileSystemType(of path: String, mountInfo: String) -> String? {
        var best: (length: Int, type: String)?
        for line in mountInfo.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { continue }
            let mountPoint = unescaped(fields[4])
            let holds = mountPoint == "/" || path == mountPoint || path.hasPrefix(mountPoint + "/")
            if holds && mountPoint.count >= (best?.length ?? -1) { best = (mountPoint.count, String(fields[dash + 1])) }
        }
        return best?.type
    }

    /// A mountinfo field with its octal escapes (`\040` for a space) decoded.
    private static func unescaped(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let first = rest.first {
            if first == UInt8(ascii: "\\"), rest.count >= 4, let code = UInt8(String(decoding: rest.dropFirst().prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(code)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(first)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
