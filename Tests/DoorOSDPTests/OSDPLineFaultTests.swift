import DoorOSDP
import Foundation
import KeypadHAL
import KeypadTestSupport
import Synchronization
import TestPeers
import Testing

/// The door's OSDP side against a reader the test plays on a real pseudo-terminal: a reader
/// that answers in the clear, and broken messages, none of which may type a key.
@Suite(.heavy)
struct OSDPLineFaultTests {
    func start(_ reader: ScriptedOSDPReader, key: OSDPKey?, log: OSDPEventLog) async throws -> KeySourceRun {
        #expect(await reader.waitUntilReady())
        let source = try OSDPKeySource(
            device: reader.panelDevice, baud: 9600, readers: [OSDPReaderSetup(address: 2, key: key)], offlineAfter: .seconds(3),
            commands: OSDPCommandQueue(), report: { address, event in log.note("\(address) \(event)") })
        return source.start(
            deliver: { event in
                if case .key(.label(let label)) = event { log.note("key \(label)") } else { log.note("delivered \(event)") }
            }, finished: { error in log.note("finished \(String(describing: error))") })
    }

    @Test func aReaderWithoutTheSecureChannelIsRefusedWhenTheDoorHasAKey() async throws {
        let reader = try ScriptedOSDPReader { command in
            if let answer = ScriptedOSDPReader.identify(command, secure: false) { return answer }
            return ScriptedOSDPReader.reply(to: command, .keypad, [0, 2, 0x31, 0x0D])
        }
        let log = OSDPEventLog()
        let run = try await start(reader, key: OSDPKey(hex: "000102030405060708090a0b0c0d0e0f"), log: log)
        defer { run.stop() }
        #expect(await log.waitFor("2 refused(reason: \"no_secure_channel\")"))
        #expect(!log.all.contains { $0.hasPrefix("key") })
    }

    @Test func aReaderThatAnswersTheChallengeInTheClearIsRefused() async throws {
        let reader = try ScriptedOSDPReader { command in
            if let answer = ScriptedOSDPReader.identify(command, secure: true) { return answer }
            return ScriptedOSDPReader.reply(to: command, .keypad, [0, 2, 0x31, 0x0D])
        }
        let log = OSDPEventLog()
        let run = try await start(reader, key: OSDPKey(hex: "000102030405060708090a0b0c0d0e0f"), log: log)
        defer { run.stop() }
        #expect(await log.waitFor("2 refused(reason: \"clear_text\")"))
        #expect(!log.all.contains { $0.hasPrefix("key") })
    }

    @Test func brokenRepliesAreDroppedAndCountedAndTheLineRecovers() async throws {
        let polls = TestCounter()
        let reader = try ScriptedOSDPReader { command in
            if let answer = ScriptedOSDPReader.identify(command, secure: false) { return answer }
            guard command.code == OSDPCommand.poll.rawValue else { return ScriptedOSDPReader.reply(to: command, .ack) }
            let keypad = ScriptedOSDPReader.reply(to: command, .keypad, [0, 1, 0x39])
            switch polls.next() {
            case 1:
                var corrupted = keypad
                corrupted[corrupted.count - 3] ^= 0x01
                return corrupted
            case 2: return ScriptedOSDPReader.reply(to: command, .keypad, [0, 1, 0x39], sequence: (command.sequence % 3) + 1)
            case 3: return [0x53, 0x82, 0x03, 0x00, 0x04]
            case 4: return OSDPPacket(address: 2, isReply: true, sequence: command.sequence, code: 0x99).encoded()
            case 5: return ScriptedOSDPReader.reply(to: command, .keypad, [0, 5, 0x39])
            case 6: return [0x12, 0x34, 0x56]
            case 7: return ScriptedOSDPReader.reply(to: command, .keypad, [0, 1, 0x37])
            default: return ScriptedOSDPReader.reply(to: command, .ack)
            }
        }
        let log = OSDPEventLog()
        let run = try await start(reader, key: nil, log: log)
        defer { run.stop() }
        #expect(await log.waitFor("2 online(secure: false)"))
        #expect(await log.waitFor("key 7"), "\(log.all)")
        for reason in ["check", "sequence", "length", "unknown_reply", "reply_length", "noise"] {
            #expect(log.all.contains("2 dropped(reason: \"\(reason)\")"), "\(reason): \(log.all)")
        }
        #expect(log.all.filter { $0.hasPrefix("key") } == ["key 7"])
        #expect(!log.all.contains("2 offline"))
    }
}
