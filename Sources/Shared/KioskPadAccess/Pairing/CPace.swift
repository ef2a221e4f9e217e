import CSodium
import Crypto
import Foundation

/// CPace, the balanced PAKE of draft-irtf-cfrg-cpace, in its suite CPACE-RISTR255-SHA512:
/// ristretto255 from libsodium (loaded at run time, ``CSodium``), SHA-512 from swift-crypto.
/// Two parties who share a low-entropy secret (PRS) each send one group element; each derives
/// the same intermediate session key (ISK) only when their PRS, channel identifier (CI) and
/// session id (sid) match. A party who does not know the PRS can test one guess per exchange,
/// never offline. The functions are the draft's, named as it names them; the protocol around
/// them is ``PairingExchange``'s. Each call is a few scalar multiplications (tens of
/// microseconds, `Benchmarks/Benchmarks/Pairing`), run on the caller's thread.
public enum CPace {
    /// G.DSI of G_Ristretto255.
    public static let dsi = Data("CPaceRistretto255".utf8)
    /// H.s_in_bytes of SHA-512.
    static let hashBlockBytes = 128
    static let elementBytes = 32

    /// Why an exchange cannot go on.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// libsodium could not be loaded (the text says why and what to install).
        case unavailable(String)
        /// A message is not prefix_free_cat of a 32-byte element and its associated data.
        case malformedMessage
        /// The peer's element does not decode, or the shared point is the identity: abort.
        case invalidShare

        public var description: String {
            switch self {
            case .unavailable(let why): "pairing needs libsodium: \(why)"
            case .malformedMessage: "the pairing message is malformed"
            case .invalidShare: "the pairing message's share is not a valid ristretto255 element"
            }
        }
    }

    /// prepend_len: the length as LEB128, then the bytes.
    public static func prependLength(_ bytes: Data) -> Data {
        var length = bytes.count
        var encoded = Data()
        repeat {
            let low = UInt8(length & 0x7f)
            length >>= 7
            encoded.append(length > 0 ? low | 0x80 : low)
        } while length > 0
        return encoded + bytes
    }

    /// prefix_free_cat(a0, a1, ...).
    public static func prefixFreeCat(_ parts: [Data]) -> Data {
        parts.reduce(into: Data()) { $0.append(prependLength($1)) }
    }

    /// The parts of a prefix_free_cat, or nil when the lengths do not add up to the whole.
    public static func parsePrefixFree(_ bytes: Data, count: Int) -> [Data]? {
        var parts: [Data] = []
        var index = bytes.startIndex
        for _ in 0..<count {
            var length = 0
            var shift = 0
            while true {
                guard index < bytes.endIndex, shift < 28 else { return nil }
                let byte = bytes[index]
                index += 1
                length |= Int(byte & 0x7f) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            guard bytes.endIndex - index >= length else { return nil }
            parts.append(Data(bytes[index..<(index + length)]))
            index += length
        }
        return index == bytes.endIndex ? parts : nil
    }

    /// generator_string(G.DSI, PRS, CI, sid, H.s_in_bytes): the zero padding fills the hash's
    /// first block, so how long the PRS is does not change how much is hashed.
    public static func generatorString(prs: Data, ci: Data, sid: Data) -> Data {
        let padding = max(0, hashBlockBytes - prependLength(prs).count - prependLength(dsi).count - 1)
        return prefixFreeCat([dsi, prs, Data(count: padding), ci, sid])
    }

    /// G.calculate_generator: the generator string hashed to 64 bytes, mapped to a point.
    public static func generator(prs: Data, ci: Data, sid: Data) throws -> Data {
        try ensureLoaded()
        let hash = Array(SHA512.hash(data: generatorString(prs: prs, ci: ci, sid: sid)))
        var point = [UInt8](repeating: 0, count: elementBytes)
        guard kp_ristretto255_from_hash(&point, hash) == 0 else { throw Failure.unavailable("crypto_core_ristretto255_from_hash failed") }
        return Data(point)
    }

    /// G.sample_scalar: uniform in [1, L).
    public static func sampleScalar() throws -> Data {
        try ensureLoaded()
        var scalar = [UInt8](repeating: 0, count: elementBytes)
        guard kp_ristretto255_scalar_random(&scalar) == 0 else { throw Failure.unavailable("crypto_core_ristretto255_scalar_random failed") }
        return Data(scalar)
    }

    /// G.scalar_mult_vfy(y, X): y times the element X encodes; nil (the draft's G.I, the abort
    /// case) when X does not decode or the product is the identity. G.scalar_mult of a
    /// generator is the same function on the generator's encoding.
    public static func scalarMultVerify(_ scalar: Data, _ element: Data) throws -> Data? {
        try ensureLoaded()
        guard scalar.count == elementBytes, element.count == elementBytes else { return nil }
        var result = [UInt8](repeating: 0, count: elementBytes)
        let status = Array(scalar).withUnsafeBufferPointer { y in
            Array(element).withUnsafeBufferPointer { x in kp_ristretto255_scalarmult(&result, y.baseAddress, x.baseAddress) }
        }
        return status == 0 ? Data(result) : nil
    }

    /// MSGa or MSGb: prefix_free_cat(Y, AD).
    public static func message(share: Data, associatedData: Data) -> Data {
        prefixFreeCat([share, associatedData])
    }

    /// The share and associated data of a message; ``Failure/malformedMessage`` when its
    /// lengths do not add up or the share is not 32 bytes.
    public static func parseMessage(_ message: Data) throws -> (share: Data, associatedData: Data) {
        guard let parts = parsePrefixFree(message, count: 2), parts[0].count == elementBytes else { throw Failure.malformedMessage }
        return (parts[0], parts[1])
    }

    /// ISK in the initiator-responder setting: H(prefix_free_cat(G.DSI || "_ISK", sid, K) ||
    /// MSGa || MSGb), 64 bytes.
    public static func intermediateSessionKey(sid: Data, sharedPoint: Data, initiatorMessage: Data, responderMessage: Data) -> Data {
        var input = prefixFreeCat([dsi + Data("_ISK".utf8), sid, sharedPoint])
        input.append(initiatorMessage)
        input.append(responderMessage)
        return Data(SHA512.hash(data: input))
    }

    /// One side's ISK from its scalar and the peer's message: the shared point, checked
    /// (``Failure/invalidShare`` on the abort case), then the transcript hashed.
    public static func finish(scalar: Data, peerMessage: Data, sid: Data, initiatorMessage: Data, responderMessage: Data) throws -> Data {
        let (peerShare, _) = try parseMessage(peerMessage)
        guard let shared = try scalarMultVerify(scalar, peerShare) else { throw Failure.invalidShare }
        return intermediateSessionKey(sid: sid, sharedPoint: shared, initiatorMessage: initiatorMessage, responderMessage: responderMessage)
    }

    /// Throws ``Failure/unavailable(_:)`` when libsodium cannot be used here.
    public static func ensureLoaded() throws {
        var error = [CChar](repeating: 0, count: 256)
        guard kp_sodium_load(&error, error.count) == 0 else {
            throw Failure.unavailable(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }
}
