import Foundation

/// Writes a Swift file holding other files' text, so a program carries them in its binary:
/// `embed-files OUTPUT TYPE FILE...` makes `enum TYPE { static let files: [String: String] }`
/// keyed by each file's name. A file's final newline is not part of its text. Run at build
/// time by the EmbedFiles plugin (the console's templates, stylesheet and script).
@main
enum EmbedFiles {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count >= 2, let output = arguments.first, let type = arguments.dropFirst().first else {
            FileHandle.standardError.write(Data("usage: embed-files OUTPUT TYPE FILE...\n".utf8))
            exit(2)
        }
        var entries: [(String, String)] = []
        for path in arguments.dropFirst(2) {
            var text = try String(contentsOfFile: path, encoding: .utf8)
            if text.hasSuffix("\n") { text.removeLast() }
            entries.append((URL(fileURLWithPath: path).lastPathComponent, text))
        }
        var swift = "// Made at build time by the EmbedFiles plugin from the target's Files folder: edit those.\n"
        swift += "enum \(type) {\n    static let files: [String: String] = [\n"
        for (name, text) in entries.sorted(by: { $0.0 < $1.0 }) {
            swift += "        \(literal(name)): \(literal(text)),\n"
        }
        swift += "    ]\n}\n"
        try swift.write(toFile: output, atomically: true, encoding: .utf8)
    }

    /// `text` as a Swift raw string literal: `#"..."#` for a name, a multi-line one for a
    /// file, with one `#` more than the longest run in `text`, so nothing in it ends the
    /// literal or starts an escape. (A multi-line literal's line breaks are line feeds.)
    static func literal(_ text: String) -> String {
        var longest = 0
        var run = 0
        for character in text {
            run = character == "#" ? run + 1 : 0
            longest = max(longest, run)
        }
        let hashes = String(repeating: "#", count: longest + 1)
        return text.contains("\n") ? "\(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)" : "\(hashes)\"\(text)\"\(hashes)"
    }
}
