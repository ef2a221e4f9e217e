import Foundation
import KioskPadAccess
import Testing

/// CPace against the test vectors of draft-irtf-cfrg-cpace for CPACE-RISTR255-SHA512 (its
/// appendix, "Test vector for CPace using group ristretto255 and hash SHA-512", the set whose
/// generator is 5e25411c... and initiator-responder ISK e91ccb2c...): the generator
/// string, the generator, both messages, the shared point and the initiator-responder ISK from
/// the draft's scalars; the invalid elements it lists abort; prefix-free messages whose lengths
/// do not add up are refused.
@Suite("CPace (CPACE-RISTR255-SHA512) against the draft's test vectors")
struct CPaceTests {
    func data(_ text: String) -> Data { Data(hex(text.filter { !$0.isWhitespace })) }

    let prs = Data("Password".utf8)
    let ci = Data("\nAinitiator\nBresponder".utf8)
    var sid: Data { data("7e4b4791d6a8ef019b936c79fb7f2c57") }
    var ya: Data { data("da3d23700a9e5699258aef94dc060dfda5ebb61f02a5ea77fad53f4ff0976d08") }
    var yb: Data { data("d2316b454718c35362d83d69df6320f38578ed5984651435e2949762d900b80d") }
    let adA = Data("ADa".utf8)
    let adB = Data("ADb".utf8)

    @Test func theGeneratorStringAndGeneratorAreTheDrafts() throws {
        let string = CPace.generatorString(prs: prs, ci: ci, sid: sid)
        #expect(
            string
                == data(
                    """
                    11435061636552697374726574746f3235350850617373776f726464
                    00000000000000000000000000000000000000000000000000000000
                    00000000000000000000000000000000000000000000000000000000
                    00000000000000000000000000000000000000000000000000000000
                    00000000000000000000000000000000160a41696e69746961746f72
                    0a42726573706f6e646572107e4b4791d6a8ef019b936c79fb7f2c57
                    """))
        #expect(try CPace.generator(prs: prs, ci: ci, sid: sid) == data("5e25411ca1ad7c9debfd0b33ad987a95cefef2d3f15dcc8bd26415a5dfe2e15a"))
    }

    @Test func theMessagesSharedPointAndISKAreTheDrafts() throws {
        let generator = try CPace.generator(prs: prs, ci: ci, sid: sid)
        let shareA = try #require(try CPace.scalarMultVerify(ya, generator))
        let shareB = try #require(try CPace.scalarMultVerify(yb, generator))
        #expect(shareA == data("383a85dd236978f17f8c8545b50dabc52a39fcdab2cf8bc531ce040ff77ca82d"))
        #expect(shareB == data("a6206309c0e8e5f579295e35997ac4300ab3fecec3c17f7b604f3e698fa1383c"))
        let messageA = CPace.message(share: shareA, associatedData: adA)
        let messageB = CPace.message(share: shareB, associatedData: adB)
        #expect(messageA == data("20383a85dd236978f17f8c8545b50dabc52a39fcdab2cf8bc531ce040ff77ca82d03414461"))
        #expect(messageB == data("20a6206309c0e8e5f579295e35997ac4300ab3fecec3c17f7b604f3e698fa1383c03414462"))
        let sharedA = try CPace.scalarMultVerify(ya, shareB)
        let sharedB = try CPace.scalarMultVerify(yb, shareA)
        #expect(sharedA == data("fa1d0318864e2cacb26875f1b791c9ae83204fe8359addb53e95a2e98893853f") && sharedA == sharedB)
        let isk = data(
            """
            e91ccb2c0f5e0d0993a33956e3be59754f3f2b07db57631f5394452ea2e7b4354674eb1f5686c078462bf83bec72e8743df440108e638f35
            26d9b90e85be096f
            """)
        #expect(try CPace.finish(scalar: ya, peerMessage: messageB, sid: sid, initiatorMessage: messageA, responderMessage: messageB) == isk)
        #expect(try CPace.finish(scalar: yb, peerMessage: messageA, sid: sid, initiatorMessage: messageA, responderMessage: messageB) == isk)
    }

    @Test func theDraftsScalarMultCaseAndInvalidElements() throws {
        let scalar = data("7cd0e075fa7955ba52c02759a6c90dbbfc10e6d40aea8d283e407d88cf538a05")
        #expect(
            try CPace.scalarMultVerify(scalar, data("2c3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c"))
                == data("7c13645fe790a468f62c39beb7388e541d8405d1ade69d1778c5fe3e7f6b600e"))
        // Y_i1 does not decode; Y_i2 is the identity: both the abort case, and a message
        // carrying either ends the exchange.
        let invalid = data("2b3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c")
        let identity = Data(count: 32)
        #expect(try CPace.scalarMultVerify(scalar, invalid) == nil)
        #expect(try CPace.scalarMultVerify(scalar, identity) == nil)
        for element in [invalid, identity] {
            let message = CPace.message(share: element, associatedData: adB)
            #expect(throws: CPace.Failure.invalidShare) {
                try CPace.finish(scalar: scalar, peerMessage: message, sid: sid, initiatorMessage: message, responderMessage: message)
            }
        }
    }

    @Test func lengthsAreLEB128AndAMessageWhoseLengthsDoNotAddUpIsRefused() throws {
        #expect(CPace.prependLength(Data()) == Data([0]))
        #expect(CPace.prependLength(Data(count: 127)).prefix(1) == Data([0x7f]))
        #expect(CPace.prependLength(Data(count: 128)).prefix(2) == Data([0x80, 0x01]))
        #expect(CPace.prependLength(Data(count: 300)).prefix(2) == Data([0xac, 0x02]))
        let long = Data((0..<300).map { UInt8($0 & 0xff) })
        #expect(CPace.parsePrefixFree(CPace.prefixFreeCat([long, adA]), count: 2) == [long, adA])
        let good = CPace.message(share: Data(repeating: 5, count: 32), associatedData: adA)
        #expect(try CPace.parseMessage(good).associatedData == adA)
        for bad in [good.dropLast(), good + Data([0]), Data([0x21]) + good.dropFirst(), Data([0x1f]) + good.dropFirst(), Data()] {
            #expect(throws: CPace.Failure.malformedMessage) { try CPace.parseMessage(Data(bad)) }
        }
        // A share of another length in a well-formed encoding is refused too.
        #expect(throws: CPace.Failure.malformedMessage) { try CPace.parseMessage(CPace.message(share: Data(count: 31), associatedData: adA)) }
    }
}
