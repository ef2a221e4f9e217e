import CKernelClock
import Foundation

/// A point on this boot's clock: `CLOCK_BOOTTIME` (which nothing sets, and which counts
/// time in suspend) and the boot it belongs to (`/proc/sys/kernel/random/boot_id`). A
/// door without a trusted wall clock keeps true time offline as the verifier's signed
/// `issued_at` plus the boot time elapsed since it arrived, on the same boot only.
public struct BootInstant: Sendable, Equatable {
    public let bootID: String
    public let nanoseconds: Int64

    public init(bootID: String, nanoseconds: Int64) {
        self.bootID = bootID
        self.nanoseconds = nanoseconds
    }

    /// Now on this boot; nil when the kernel gives neither.
    public static func now() -> BootInstant? {
        let nanoseconds = kp_clock_boottime_ns()
        guard nanoseconds >= 0,
            let id = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines),
            !id.isEmpty
        else { return nil }
        return BootInstant(bootID: id, nanoseconds: nanoseconds)
    }

    /// Seconds from `earlier` to this instant; nil when they are on different boots (or
    /// `earlier` is later, which a boot clock never does).
    public func seconds(since earlier: BootInstant) -> Double? {
        guard bootID == earlier.bootID, nanoseconds >= earlier.nanoseconds else { return nil }
        return Double(nanoseconds - earlier.nanoseconds) / 1e9
    }
}
