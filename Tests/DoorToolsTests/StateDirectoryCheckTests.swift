import Foundation
import Testing

@testable import DoorTools

/// `config check --with-files` on the state directory (issue 47): not writable is an
/// error, in memory or on an overlay a warning, a disk nothing.
@Suite("state directory check")
struct StateDirectoryCheckTests {
    @Test func fileSystemTypesAreReadAsTheKernelNamesThem() {
        #expect(StateDirectoryCheck.storage(ofFileSystemType: "tmpfs") == .memory("tmpfs"))
        #expect(StateDirectoryCheck.storage(ofFileSystemType: "ramfs") == .memory("ramfs"))
        #expect(StateDirectoryCheck.storage(ofFileSystemType: "overlay") == .overlay)
        #expect(StateDirectoryCheck.storage(ofFileSystemType: "ext4") == .disk)
    }

    /// Mounts as Raspberry Pi OS's read-only root (overlayroot) lays them out, with a data
    /// partition at /var/lib/kioskpad and a mount point holding a space.
    @Test func theMountHoldingAPathIsTheOneWithTheLongestMountPoint() {
        let mounts = """
            22 1 179:2 / / rw,noatime shared:1 - overlay overlayroot rw,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay
            23 22 179:2 / /media/root-ro ro,noatime shared:2 - ext4 /dev/mmcblk0p2 ro
            30 22 0:25 / /run rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=92000k
            31 22 179:3 / /var/lib/kioskpad rw,noatime shared:9 - ext4 /dev/mmcblk0p3 rw
            32 22 8:1 / /mnt/usb\\040stick rw,noatime shared:10 - vfat /dev/sda1 rw
            """
        #expect(StateDirectoryCheck.fileSystemType(of: "/var/lib/kioskpad", mountInfo: mounts) == "ext4")
        #expect(StateDirectoryCheck.fileSystemType(of: "/var/lib/kioskpad/replica", mountInfo: mounts) == "ext4")
        #expect(StateDirectoryCheck.fileSystemType(of: "/var/lib/kioskpadx", mountInfo: mounts) == "overlay")
        #expect(StateDirectoryCheck.fileSystemType(of: "/var/lib", mountInfo: mounts) == "overlay")
        #expect(StateDirectoryCheck.fileSystemType(of: "/run/kioskpad", mountInfo: mounts) == "tmpfs")
        #expect(StateDirectoryCheck.fileSystemType(of: "/mnt/usb stick/kp", mountInfo: mounts) == "vfat")
    }

    @Test func aReadOnlyDirectoryIsAnErrorThatNamesWhatIsKeptThere() {
        let findings = StateDirectoryCheck.findings(
            path: "/var/lib/kioskpad", checked: "/var/lib", writable: false, reason: "Read-only file system", readOnlyFileSystem: true, storage: .disk)
        #expect(findings.count == 1)
        #expect(findings.first?.isError == true)
        let text = findings.first?.text ?? ""
        #expect(text.hasPrefix("/var/lib/kioskpad (judged by /var/lib, the nearest directory that exists) cannot be written (Read-only file system)"))
        #expect(text.contains("journal") && text.contains("mount a writable partition at state_dir"))
        let denied = StateDirectoryCheck.findings(path: "/srv/kp", checked: "/srv/kp", writable: false, reason: "Permission denied", storage: .disk)
        #expect(denied.first?.text.hasSuffix("give it to the user the door runs as (kioskpad), or name another state_dir") == true)
    }

    @Test func memoryAndOverlayAreWarningsAndADiskIsNothing() {
        let tmpfs = StateDirectoryCheck.findings(path: "/run/kp", checked: "/run/kp", writable: true, reason: nil, storage: .memory("tmpfs"))
        #expect(tmpfs.map(\.isError) == [false])
        #expect(tmpfs.first?.text.hasPrefix("/run/kp is in memory (tmpfs): the journal and the offline replica would vanish at the next boot") == true)
        let overlay = StateDirectoryCheck.findings(path: "/var/lib/kioskpad", checked: "/var/lib/kioskpad", writable: true, reason: nil, storage: .overlay)
        #expect(overlay.map(\.isError) == [false] && overlay.first?.text.contains("overlay file system") == true)
        #expect(StateDirectoryCheck.findings(path: "/data/kp", checked: "/data/kp", writable: true, reason: nil, storage: .disk).isEmpty)
    }

    /// On this machine: /dev/shm is the kernel's tmpfs; a directory not made yet under it is
    /// judged by /dev/shm.
    @Test func aDirectoryUnderDevShmIsFoundToBeInMemory() throws {
        let mounts = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        try #require(StateDirectoryCheck.fileSystemType(of: "/dev/shm", mountInfo: mounts) == "tmpfs", "/dev/shm is not a tmpfs here")
        let findings = StateDirectoryCheck.check("/dev/shm/kp-state-\(UUID())/journal")
        #expect(findings.map(\.isError) == [false])
        #expect(findings.first?.text.contains("(judged by /dev/shm, the nearest directory that exists) is in memory (tmpfs)") == true, "\(findings)")
    }
}
