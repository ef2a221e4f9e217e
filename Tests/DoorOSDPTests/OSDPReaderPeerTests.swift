import DoorOSDP
import Foundation
import KeypadHAL
import KeypadTestSupport
import KioskPadCore
import TestPeers
import Testing

/// The door's OSDP side against libosdp's reader (the reference implementation) over a
/// pseudo-terminal pair: sessions, the Secure Channel, keys, cards, feedback, supervision.
@Suite(.heavy)
struct OSDPReaderPeerTests {
    static let key = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let otherKey = "00112233445566778899aabbccddeeff"

    /// Starts the door's side on `peer`'s line; events and reports go to `log` as text.
    func start(
        _ peer: OSDPPeer, key: String?, installMode: Bool = false, offlineAfter: Duration = .seconds(2), commands: OSDPCommandQueue = OSDPCommandQueue(),
        log: OSDPEventLog
    ) throws -> KeySourceRun {
        let source = try OSDPKeySource(
            device: peer.panelDevice, baud: 115_200, readers: [OSDPReaderSetup(address: 1, key: key.flatMap { OSDPKey(hex: $0) })],
            offlineAfter: offlineAfter, installMode: installMode, commands: commands,
            report: { address, event in
                switch event {
                case .keys, .card: break
                default: log.note("\(address) \(event)")
                }
            })
        return source.start(
            deliver: { event in
                switch event {
                case .key(.label(let label)): log.note("key \(label)")
                case .card(let digits): log.note("card \(digits.withASCIIBytes { String(decoding: $0, as: UTF8.self) })")
                default: log.note("other")
                }
            }, finished: { error in log.note("finished \(String(describing: error))") })
    }

    /// A reader with `arguments` and the door's side with ``key``, waited until the reader is
    /// online through the Secure Channel.
    func secureReader(
        _ arguments: [String], commands: OSDPCommandQueue = OSDPCommandQueue()
    ) async throws -> (OSDPPeer, OSDPEventLog, KeySourceRun) {
        let peer = try OSDPPeer(arguments: arguments)
        #expect(await peer.waitUntilReady())
        let log = OSDPEventLog()
        let run = try start(peer, key: Self.key, commands: commands, log: log)
        #expect(await log.waitFor("1 online(secure: true)"))
        return (peer, log, run)
    }

    @Test func keysTypedAtASecureReaderReachTheEntryInOrder() async throws {
        let (peer, log, run) = try await secureReader(["--key", Self.key, "--enforce-secure"])
        defer { run.stop() }
        peer.send("keys 1234*#")
        #expect(await log.waitFor("key #"))
        #expect(log.all.filter { $0.hasPrefix("key ") } == ["key 1", "key 2", "key 3", "key 4", "key *", "key #"])
        peer.send("state")
        try await Task.sleep(for: .milliseconds(300))
        #expect(peer.lines(containing: "\"secure\": true").count == 1)
    }

    @Test func fourReadersShareOneLineEachWithItsOwnSession() async throws {
        let peer = try OSDPPeer(arguments: ["--key", Self.key, "--more-readers", "2,3,4"])
        #expect(await peer.waitUntilReady())
        let log = OSDPEventLog()
        let source = try OSDPKeySource(
            device: peer.panelDevice, baud: 115_200, readers: (1...4).map { OSDPReaderSetup(address: $0, key: OSDPKey(hex: Self.key)) },
            commands: OSDPCommandQueue(), report: { address, event in log.note("\(address) \(event)") })
        let run = source.start(
            deliver: { event in if case .key(.label(let label)) = event { log.note("key \(label)") } }, finished: { _ in })
        defer { run.stop() }
        for address in 1...4 { #expect(await log.waitFor("\(address) online(secure: true)"), "\(log.all)") }
        peer.send("keys 42")
        #expect(await log.waitFor("key 2"))
        #expect(log.all.filter { $0.hasPrefix("key") } == ["key 4", "key 2"])
        #expect(!log.all.contains { $0.contains("dropped") || $0.contains("offline") }, "\(log.all)")
    }

    @Test func aWiegandCardReadsAsTheWiegandSourceReadsIt() async throws {
        let (peer, log, run) = try await secureReader(["--key", Self.key])
        defer { run.stop() }
        // Facility 12, card 3456: 24 data bits between the parity bits.
        let bits = WiegandFrame.numberBits(12 << 16 | 3456, bits: 26)
        var bytes = [UInt8](repeating: 0, count: 4)
        for (index, bit) in bits.enumerated() where bit { bytes[index / 8] |= 0x80 >> UInt8(index % 8) }
        peer.send("card 26 " + bytes.map { String(format: "%02x", $0) }.joined())
        let expected = WiegandKeySource.card(12 << 16 | 3456, bits: 26).withASCIIBytes { String(decoding: $0, as: UTF8.self) }
        #expect(await log.waitFor("card \(expected)"))
    }

    @Test func theDoorsFeedbackArrivesAtTheReader() async throws {
        let commands = OSDPCommandQueue()
        let (peer, _, run) = try await secureReader(["--key", Self.key], commands: commands)
        defer { run.stop() }
        commands.send(.led(color: OSDPReaderFeedback.green, onTenths: 20, offTenths: 0, forTenths: 20))
        commands.send(.buzzer(onTenths: 1, offTenths: 1, count: 2))
        commands.send(.text("Enter PIN", row: 1))
        #expect(await eventually { peer.lines(containing: "\"command\": \"text\"").count == 1 })
        let led = try #require(peer.lines(containing: "\"command\": \"led\"").first)
        #expect(led.contains("\"on_color\": 2") && led.contains("\"temporary\": true") && led.contains("\"timer_count\": 20"))
        let buzzer = try #require(peer.lines(containing: "\"command\": \"buzzer\"").first)
        #expect(buzzer.contains("\"rep_count\": 2"))
        #expect(peer.lines(containing: "Enter PIN").count == 1)
    }

    @Test func aWrongKeyIsRefusedAndNoKeyGetsThrough() async throws {
        let peer = try OSDPPeer(arguments: ["--key", Self.otherKey, "--enforce-secure"])
        #expect(await peer.waitUntilReady())
        let log = OSDPEventLog()
        let run = try start(peer, key: Self.key, log: log)
        defer { run.stop() }
        #expect(await log.waitFor("1 refused(reason: \"key\")"))
        peer.send("keys 1234#")
        try await Task.sleep(for: .seconds(1))
        #expect(!log.all.contains { $0.hasPrefix("key ") || $0.contains("online") })
    }

    @Test func aReaderLeftInInstallModeIsRefusedWhenTheDoorHasItsOwnKey() async throws {
        let peer = try OSDPPeer(arguments: ["--install-mode"])
        #expect(await peer.waitUntilReady())
        let log = OSDPEventLog()
        let run = try start(peer, key: Self.key, log: log)
        defer { run.stop() }
        #expect(await log.waitFor("1 refused(reason: \"key\")"), "\(log.all)")
        peer.send("keys 1234#")
        try await Task.sleep(for: .seconds(1))
        #expect(!log.all.contains { $0.hasPrefix("key ") || $0.contains("online") })
    }

    @Test func aSilentReaderGoesOfflineAndComesBack() async throws {
        let (peer, log, run) = try await secureReader(["--key", Self.key])
        defer { run.stop() }
        peer.send("pause")
        #expect(await log.waitFor("1 offline"), "\(log.all)")
        peer.send("resume")
        #expect(await eventually { log.all.filter { $0 == "1 online(secure: true)" }.count == 2 })
        peer.send("keys 5#")
        #expect(await log.waitFor("key 5"))
    }

    @Test func aReaderSilentForLessThanTheOfflineTimeIsNotReportedAndItsKeysWorkAfter() async throws {
        let peer = try OSDPPeer(arguments: ["--key", Self.key])
        #expect(await peer.waitUntilReady())
        let log = OSDPEventLog()
        let run = try start(peer, key: Self.key, offlineAfter: .seconds(6), log: log)
        defer { run.stop() }
        #expect(await log.waitFor("1 online(secure: true)"))
        // Silent for 1.5 s (the door resends its message with the same sequence number): whether
        // the reader kept its session or a new one was made, no report and no refusal.
        peer.send("pause")
        try await Task.sleep(for: .milliseconds(1500))
        peer.send("resume")
        try await Task.sleep(for: .milliseconds(500))
        peer.send("keys 8")
        #expect(await log.waitFor("key 8"))
        #expect(!log.all.contains("1 offline") && !log.all.contains { $0.contains("refused") }, "\(log.all)")
    }

    @Test func tamperAndPowerReportsReachTheDoor() async throws {
        let (peer, log, run) = try await secureReader(["--key", Self.key])
        defer { run.stop() }
        peer.send("status 1 0")
        #expect(await log.waitFor("1 tamper(active: true)"))
        peer.send("status 0 1")
        #expect(await log.waitFor("1 tamper(active: false)"))
        #expect(await log.waitFor("1 power(ok: false)"))
    }

    @Test func aReaderInInstallModeTakesItsOwnKeyOnlyThroughTheSecureChannel() async throws {
        let peer = try OSDPPeer(arguments: ["--install-mode"])
        #expect(await peer.waitUntilReady())
        let log = OSDPEventLog()
        let commands = OSDPCommandQueue()
        let install = try start(peer, key: nil, installMode: true, commands: commands, log: log)
        #expect(await log.waitFor("1 online(secure: true)"))
        commands.send(.keySet(try #require(OSDPKey(hex: Self.otherKey))))
        #expect(await log.waitFor("1 keySetAccepted"))
        install.stop()
        #expect(peer.lines(containing: "\"key_length\": 16").count == 1)
        try await Task.sleep(for: .milliseconds(300))
        let after = OSDPEventLog()
        let run = try start(peer, key: Self.otherKey, log: after)
        defer { run.stop() }
        #expect(await after.waitFor("1 online(secure: true)"))
    }
}
