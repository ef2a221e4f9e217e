import DoorOSDP
import Foundation
import KeypadTestSupport
import Synchronization
import TestPeers

#if canImport(Glibc)
    import Glibc
#endif

/// A reader played by the test on the far end of a socat pseudo-terminal pair: each command
/// the door sends is parsed and `answer` gives the bytes sent back (nil: silence). For what
/// libosdp will not do: answer in the clear, send broken messages.
final class ScriptedOSDPReader: @unchecked Sendable {
    // @unchecked: `stopped` and the command log are synchronised; the rest is fixed after init.
    let folder: String
    let panelDevice: String
    private let line: SpawnedChild
    private let stopped = TestCounter()
    let commands = OSDPEventLog()

    init(answer: @escaping @Sendable (OSDPPacket) -> [UInt8]?) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("kp-osdp-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        panelDevice = folder + "/panel"
        line = try SpawnedChild(["socat", "pty,raw,echo=0,link=\(folder)/panel", "pty,raw,echo=0,link=\(folder)/reader"])
        let path = folder + "/reader"
        let stopped = self.stopped
        let commands = self.commands
        // The answering thread waits for socat's link and opens it itself, so this init never
        // sleeps on the caller's thread (a cooperative one in the tests); it closes the end
        // when it stops.
        Thread.detachNewThread {
            var fd: Int32 = -1
            for _ in 0..<500 where stopped.value == 0 {
                fd = open(path, O_RDWR | O_NOCTTY)
                if fd >= 0 { break }
                usleep(10_000)
            }
            guard fd >= 0 else { return }
            defer { close(fd) }
            var reader = OSDPPacketReader()
            var buffer = [UInt8](repeating: 0, count: 256)
            while stopped.value == 0 {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 50) > 0 else { continue }
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { return }
                reader.append(buffer[0..<count])
                while let result = reader.next() {
                    guard case .success(let received) = result else { continue }
                    commands.note(String(received.packet.code, radix: 16))
                    if let reply = answer(received.packet) { _ = reply.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
                }
            }
        }
    }

    deinit {
        // The thread sees this within 50 ms and closes its end; socat is killed and reaped on
        // a thread of its own (a deinit may run on a cooperative thread).
        stopped.next()
        line.terminateInBackground()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Waits up to 5 s, without blocking the thread, for socat's link to the door's end.
    func waitUntilReady() async -> Bool {
        await eventually { FileManager.default.fileExists(atPath: self.panelDevice) }
    }

    /// A reply to `command` from reader `address`, with the command's sequence number.
    static func reply(to command: OSDPPacket, _ code: OSDPReply, _ data: [UInt8] = [], sequence: UInt8? = nil) -> [UInt8] {
        OSDPPacket(address: command.address, isReply: true, sequence: sequence ?? command.sequence, code: code.rawValue, data: data).encoded()
    }

    /// The usual answers to the session's first steps: who it is, and what it can do (`secure`:
    /// whether it offers the Secure Channel).
    static func identify(_ command: OSDPPacket, secure: Bool) -> [UInt8]? {
        switch OSDPCommand(rawValue: command.code) {
        case .id: return reply(to: command, .id, [0x5C, 0x26, 0x23, 1, 2, 0, 0, 0, 0, 1, 0, 0])
        case .capabilities: return reply(to: command, .capabilities, [3, 1, 1, 4, 1, 1] + (secure ? [9, 1, 1] : []))
        case .localStatus: return reply(to: command, .localStatus, [0, 0])
        default: return nil
        }
    }
}

/// A counter threads share in a test.
final class TestCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    /// Adds one; the new value.
    @discardableResult
    func next() -> Int { count.add(1, ordering: .sequentiallyConsistent).newValue }
}
