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

    /// Now on this boot; nil when the boot clock or the boot id cannot be read.
    public static func now() -> BootInstant? {
        let nanoseconds = kp_clock_boottime_ns()
        guard nanoseconds >= 0, let id = bootID else { return nil }
        return BootInstant(bootID: id, nanoseconds: nanoseconds)
    }

    /// This boot's id: from the kernel, or, where `/proc/sys` is hidden (the service's
    /// `ProcSubset=pid`), from `KIOSKPAD_BOOT_ID`, which the unit sets to systemd's `%b`.
    public static var bootID: String? {
        let kernel = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        for candidate in [kernel, ProcessInfo.processInfo.environment["KIOSKPAD_BOOT_ID"]] {
            if let id = candidate?.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "").lowercased(),
                id.count == 32, id.allSatisfy(\.isHexDigit)
            {
                return id
            }
        }
        return nil
    }

    /// Seconds from `earlier` to this instant; nil when they are on different boots (or
    /// `earlier` is later, which a boot clock never does).
    public func seconds(since earlier: BootInstant) -> Double? {
        guard bootID == earlier.bootID, nanoseconds >= earlier.nanoseconds else { return nil }
        return Double(nanoseconds - earlier.nanoseconds) / 1e9
    }
}
