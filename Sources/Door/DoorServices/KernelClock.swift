import CKernelClock

/// Whether this machine's wall clock counts for access rules (`clock.trust`), and why
/// not when it does not. `synchronised` asks the kernel (adjtimex(2), read only): the
/// clock counts while it reports the clock synchronised, which systemd-timesyncd, chrony or
/// ntpd leave it once they have set it. `rtc` trusts the clock always.
public enum KernelClock {
    /// Whether the kernel reports the clock synchronised (`STA_UNSYNC` clear, state not `TIME_ERROR`).
    public static func isSynchronised() -> Bool {
        kp_clock_synchronised() == 1
    }

    /// Whether the wall clock counts now: always with `rtc` (`clock.trust: rtc`), else while
    /// the kernel reports it synchronised (`clock.trust: synchronised`).
    public static func trusted(rtc: Bool, synchronised: () -> Bool = isSynchronised) -> Bool {
        rtc || synchronised()
    }

    /// Nil when the clock counts, else a line for `/healthz` saying why not and what it means.
    public static func problem(rtc: Bool, synchronised: () -> Bool = isSynchronised) -> String? {
        trusted(rtc: rtc, synchronised: synchronised)
            ? nil
            : "clock not trusted (the kernel reports it unsynchronised; clock.trust: synchronised): users with a schedule or validity are denied"
    }
}
