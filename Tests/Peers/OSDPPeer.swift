import Foundation
import KeypadTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real OSDP reader for the tests: libosdp's peripheral device (Tests/OSDP/osdp-reader.py,
/// PyPI `libosdp`) on one end of a pseudo-terminal pair that socat makes; the door's side
/// opens ``panelDevice``. What the reader was sent arrives as JSON lines in ``lines``.
public final class OSDPPeer: @unchecked Sendable {
    // @unchecked: `received` is a Mutex; the children are fixed after init.
    public let folder: String
    public let panelDevice: String
    private let line: SpawnedChild
    private let reader: SpawnedChild
    private let received = OSDPEventLog()

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("OSDP/osdp-reader.py").path

    public init(address: Int = 1, arguments: [String] = []) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("kp-osdp-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        panelDevice = folder + "/panel"
        line = try SpawnedChild(["socat", "pty,raw,echo=0,link=\(folder)/panel", "pty,raw,echo=0,link=\(folder)/reader"])
        // The child waits for socat's link (up to 5 s), so this init never sleeps on the
        // caller's thread (a cooperative one in the tests).
        reader = try SpawnedChild(
            Self.afterLink(folder + "/reader") + ["python3", Self.script, "--device", folder + "/reader", "--address", "\(address)"] + arguments,
            stdin: .pipe, stdout: .pipe, stderr: .file(folder + "/reader.log"))
        let output = reader.output!
        let received = self.received
        Thread.detachNewThread {
            var pending = ""
            SpawnedChild.read(output) { chunk in
                pending += String(decoding: chunk, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let text = String(pending[..<newline])
                    pending.removeSubrange(...newline)
                    received.note(text)
                }
            }
        }
    }

    deinit {
        // Killed and reaped on threads of their own: a deinit may run on a cooperative thread.
        reader.terminateInBackground()
        line.terminateInBackground()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A command prefix that waits (up to 5 s) for `path` to exist, then runs the rest.
    public static func afterLink(_ path: String) -> [String] {
        ["bash", "-c", #"for _ in $(seq 500); do [ -e "$1" ] && break; sleep 0.01; done; shift; exec "$@""#, "wait-for-link", path]
    }

    /// Sends one command line to the reader (see the script's help).
    public func send(_ command: String) {
        reader.write(command + "\n")
    }

    public var lines: [String] { received.all }

    /// The reader's output lines that contain `text`.
    public func lines(containing text: String) -> [String] { lines.filter { $0.contains(text) } }

    /// Waits up to 10 s, on this thread, for the reader to say it is ready (benchmarks).
    public func waitUntilReadyBlocking() -> Bool {
        for _ in 0..<1000 {
            if !lines(containing: "\"ready\"").isEmpty { return true }
            usleep(10_000)
        }
        return false
    }

    /// Waits up to `seconds` for the reader to say it is ready.
    public func waitUntilReady(seconds: Int = 10) async -> Bool {
        for _ in 0..<(seconds * 100) {
            if !lines(containing: "\"ready\"").isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

/// Collects what a reader session reported, for waiting on.
public final class OSDPEventLog: Sendable {
    public init() {}

    private let events = Mutex<[String]>([])

    public func note(_ text: String) { events.withLock { $0.append(text) } }

    public var all: [String] { events.withLock { $0 } }

    /// Waits up to `seconds` until an entry equals `text`.
    public func waitFor(_ text: String, seconds: Double = 10) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        while clock.now < deadline {
            if all.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return all.contains(text)
    }
}
