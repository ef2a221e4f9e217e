import Foundation
import Testing

@testable import SiteConsole

/// The console's JSON writer: what it writes reads back as the values it was given (nested,
/// escaped, null for an absent Optional), with keys in byte order.
@Suite("Console JSON writer")
struct ConsoleJSONTests {
    @Test func valuesReadBackAsGivenWithKeysInByteOrder() throws {
        let missing: String? = nil
        let present: String? = "here"
        let value: [String: Any] = [
            "zeta": 1, "Alpha": "quote \" backslash \\ newline \n tab \t bell \u{7} é ✓", "beta": [true, false, NSNull()],
            "count": Int64(9_007_199_254_740_993), "ratio": 0.25, "nested": [["a": 1], ["b": [String]()]], "missing": missing as Any,
            "present": present as Any, "url": "https://x.example/a/b",
        ]
        let text = String(decoding: ConsoleJSON.bytes(value), as: UTF8.self)
        let keys = ["Alpha", "beta", "count", "missing", "nested", "present", "ratio", "url", "zeta"]
        let positions = keys.map { text.range(of: "\"\($0)\":")!.lowerBound }
        #expect(positions == positions.sorted(), "keys in byte order: \(text)")
        let back = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(back["Alpha"] as? String == value["Alpha"] as? String)
        #expect((back["beta"] as? [Any])?.count == 3 && (back["beta"] as? [Any])?.last is NSNull)
        #expect((back["count"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
        #expect(back["ratio"] as? Double == 0.25 && back["missing"] is NSNull && back["present"] as? String == "here")
        #expect(((back["nested"] as? [[String: Any]])?.last?["b"] as? [Any])?.isEmpty == true)
        #expect(String(decoding: ConsoleJSON.bytes([String: Any]()), as: UTF8.self) == "{}")
        #expect(String(decoding: ConsoleJSON.bytes(["x": Double.nan]), as: UTF8.self) == "{\"x\":null}")
    }
}
