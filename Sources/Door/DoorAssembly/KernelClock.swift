import CKernelClock
import KioskPadConfig

/// Whether this machine's wall clock counts for access rules (`clock.trust`), and why
/// not when it does not. `synchronised` asks the kernel (adjtimex(2), read only): the
/// clock counts while it reports the clock synchronised, which systemd-timesyncd, chrony or
/// ntpd leave it once they have set it. `rtc` trusts the clock always.
public enum KernelClock {
    /// Whether the kernel reports the clock synchronised (`STA_UNSYNC` clear, state not `TIME_ERROR`).
    public static func isSynchronised() -> Bool {
        kp_clock_synchronised() == 1
    }

    /// Whether the wall clock counts under `trust` now.
    public static func trusted(_ trust: ClockTrust, synchronised: () -> Bool = isSynchronised) -> Bool {
        trust == .rtc || synchronised()
    }

    /// Nil when the clock counts, else a line for `/healthz` saying why not and what it means.
    public static func problem(_ trust: ClockTrust, synchronised: () -> Bool = isSynchronised) -> String? {
        trusted(trust, synchronised: synchronised)
            ? nil
            : "clock not trusted (the kernel reports it unsynchronised; clock.trust: synchronised): users with a schedule or validity are denied"
    }
}
