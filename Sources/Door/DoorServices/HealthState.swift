import DoorController
import KioskPadCore
import Synchronization

/// Whether the keypad and the verifier path work, for `/healthz` and the systemd watchdog.
/// The verifier path counts as broken after an attempt ends in a verifier error, until one
/// gets a clear answer again.
public final class HealthState: TerminalEventSink {
    private let state = Mutex<(keypad: Bool, verifier: Bool, readersDown: Set<Int>)>((true, true, []))
    /// Why the wall clock does not count for a local verifier's rules now (nil: it does).
    private let clockProblem: @Sendable () -> String?
    /// `verifier offline: deciding from replica vN, ...` while the door decides offline.
    private let offlineLine: @Sendable () -> String?

    /// Lines for `/healthz`'s body that do not change its status (`mqtt connected (...)`).
    private let extraLines: @Sendable () -> [String]

    public init(
        clockProblem: @escaping @Sendable () -> String? = { nil }, offlineLine: @escaping @Sendable () -> String? = { nil },
        extraLines: @escaping @Sendable () -> [String] = { [] }
    ) {
        self.clockProblem = clockProblem
        self.offlineLine = offlineLine
        self.extraLines = extraLines
    }

    public func handle(_ event: TerminalEvent) async {
        switch event {
        case .keypadHealth(let ok):
            state.withLock { $0.keypad = ok }
        case .attemptDecided(_, _, let outcome, _, _, _):
            state.withLock { $0.verifier = outcome != .unavailable }
        case .reader(let address, .online):
            state.withLock { _ = $0.readersDown.remove(address) }
        case .reader(let address, .offline), .reader(let address, .refused):
            state.withLock { _ = $0.readersDown.insert(address) }
        default:
            break
        }
    }

    public var keypadOK: Bool { state.withLock { $0.keypad } }
    public var verifierOK: Bool { state.withLock { $0.verifier } }
    /// The OSDP readers (by address) that are offline or refused.
    public var readersDown: Set<Int> { state.withLock { $0.readersDown } }
    /// Unhealthy while the keypad failed, the verifier cannot answer, or an OSDP reader is
    /// offline or refused (a door with two readers still opens from the other, but someone
    /// should look).
    public var healthy: Bool { keypadOK && verifierOK && readersDown.isEmpty }

    /// A line for `/healthz` and the systemd status. An untrusted clock is said, but does
    /// not make the terminal unhealthy: users without time rules still get in. Nor does a
    /// verifier the door decides without from its replica (said instead of `verifier ok`).
    public var summary: String {
        let verifier = verifierOK ? (offlineLine() ?? "verifier ok") : "verifier unavailable"
        let down = readersDown.sorted()
        let readers = down.isEmpty ? "" : ", reader\(down.count == 1 ? "" : "s") \(down.map(String.init).joined(separator: ", ")) offline"
        return "keypad \(keypadOK ? "ok" : "failed")\(readers), \(verifier)" + (clockProblem().map { "; \($0)" } ?? "")
    }

    /// `/healthz`'s body: the summary, then the version and any extra lines (the MQTT
    /// link), each on a line of its own.
    public var body: String {
        ([summary, "kioskpad \(KioskPadVersion.version)"] + extraLines()).joined(separator: "\n") + "\n"
    }
}
