#if canImport(Glibc)
import Glibc
#endif

/// posix_spawn attributes that start a child with an empty signal mask and every signal at
/// its default action. A thread of the test process can have SIGTERM, SIGINT, SIGHUP and
/// the user signals blocked (the runtime's signal sources), and posix_spawn hands that mask
/// on: such a child never sees a SIGTERM, and stopping it waited for the SIGKILL 3 s later
/// (or, from a process about to exit, never came: the broker outlived the tests).
public enum SpawnSignals {
    /// Calls `body` with the attributes; they are destroyed after it returns.
    public static func withDefaults<T>(_ body: (UnsafeMutablePointer<posix_spawnattr_t>) throws -> T) rethrows -> T {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var every = sigset_t()
        sigfillset(&every)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return try body(&attributes)
    }
}
