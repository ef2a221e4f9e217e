// What the pairing exchange adds (issue 78): the door's half before it announces, the site's
// half and seal when a code is typed, the door's finish and open when the delivery comes;
// and the whole exchange, as one door and its site make it (the network's round trips are
// not in it). Run: cd Benchmarks && swift package benchmark --target PairingExchange
import Benchmark
import Crypto
import Foundation
import KioskPadAccess
import SmokeRun

/// One waiting door: its key, digits and half, and what the site sealed for it.
struct WaitingDoorFixture {
    let key = Curve25519.KeyAgreement.PrivateKey()
    let digits = PairingCode.drawSecret()
    let nonce = Data(repeating: 7, count: 16)
    let bundle = Data(#"{"terminal_id":"front-door","secret":"whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","replica_public_key":"ed25519:AAAA"}"#.utf8)
    let half: PairingExchange.DoorHalf
    let sealed: PairingSeal.Sealed

    init() throws {
        half = try PairingExchange.doorHalf(secret: digits, doorKey: key.publicKey.rawRepresentation)
        sealed = try PairingSeal.seal(
            bundle, doorKey: key.publicKey.rawRepresentation, doorMessage: half.message, sid: half.sid, secret: digits, announcement: "a1", nonce: nonce)
    }
}

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.cpuTotal, .wallClock, .mallocCountTotal, .throughput]
    let fixture = try! WaitingDoorFixture()
    let doorKey = fixture.key.publicKey.rawRepresentation
    Benchmark("door: its half (generator, scalar, share)", configuration: .init(metrics: metrics)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PairingExchange.doorHalf(secret: fixture.digits, doorKey: doorKey)) }
    }
    Benchmark("site: its half and the HPKE seal, per code typed", configuration: .init(metrics: metrics)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try PairingSeal.seal(
                    fixture.bundle, doorKey: doorKey, doorMessage: fixture.half.message, sid: fixture.half.sid, secret: fixture.digits,
                    announcement: "a1", nonce: fixture.nonce))
        }
    }
    Benchmark("door: finish and open the delivery", configuration: .init(metrics: metrics)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try PairingSeal.open(fixture.sealed, privateKey: fixture.key, half: fixture.half, announcement: "a1", nonce: fixture.nonce))
        }
    }
    Benchmark("the v1 seal and open without the exchange, for the ratio (HPKE alone)", configuration: .init(metrics: metrics)) { benchmark in
        let psk = SymmetricKey(size: .bits256)
        let recipient = fixture.key.publicKey
        for _ in benchmark.scaledIterations {
            var sender = try HPKE.Sender(
                recipientKey: recipient, ciphersuite: .Curve25519_SHA256_ChachaPoly, info: Data("i".utf8), presharedKey: psk,
                presharedKeyIdentifier: Data("p".utf8))
            let ciphertext = try sender.seal(fixture.bundle)
            var opener = try HPKE.Recipient(
                privateKey: fixture.key, ciphersuite: .Curve25519_SHA256_ChachaPoly, info: Data("i".utf8), encapsulatedKey: sender.encapsulatedKey,
                presharedKey: psk, presharedKeyIdentifier: Data("p".utf8))
            blackHole(try opener.open(ciphertext))
        }
    }
    SmokeRun.clampIfAsked()
}
