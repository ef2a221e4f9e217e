import Foundation
import Testing

/// The census's own table (``RoleCensusTests``: every console and API route, by every role)
/// is printed in docs/site-server.md between its two markers, so what a reader finds there is
/// what the census holds the code to. A difference fails, with the table as it should be
/// written to /tmp/kioskpad-census.md.
@Suite("Roles: the census in the docs")
struct RoleCensusDocsTests {
    static let roles = ["owner", "administrator", "user-manager", "host", "guard", "auditor"]

    /// The census as Markdown: a row a route (console first, then the API, each by path).
    static func markdown() -> String {
        var lines = ["| route | " + roles.joined(separator: " | ") + " |", "|---|" + roles.map { _ in "---|" }.joined()]
        for table in [RoleCensusTests.console, RoleCensusTests.api] {
            let ordered = table.sorted { ($0.key.split(separator: " ")[1], $0.key) < ($1.key.split(separator: " ")[1], $1.key) }
            for (route, allowed) in ordered {
                let who = Set(allowed.split(separator: " ").map(String.init))
                lines.append("| `\(route)` | " + roles.map { who.contains($0) ? "yes" : "" }.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n")
    }

    @Test func theCensusIsPrintedInTheDocs() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/site-server.md"), encoding: .utf8)
        let begin = "<!-- census: begin (RoleCensusDocsTests) -->\n"
        let end = "\n<!-- census: end -->"
        let printed = docs.range(of: begin).flatMap { start in
            docs.range(of: end, range: start.upperBound..<docs.endIndex).map { docs[start.upperBound..<$0.lowerBound] }
        }
        let table = Self.markdown()
        if printed.map(String.init) != table { try? table.write(toFile: "/tmp/kioskpad-census.md", atomically: true, encoding: .utf8) }
        #expect(printed.map(String.init) == table, "docs/site-server.md's census differs from RoleCensusTests' table; the table is in /tmp/kioskpad-census.md")
    }
}
