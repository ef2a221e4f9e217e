import Foundation
import Testing

@testable import SiteConsole

/// The console's templates, stylesheet and script are files in the source tree, embedded at
/// build time by the EmbedFiles plugin.
@Suite("Site console: files embedded at build time")
struct ConsoleFilesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Site/SiteConsole/Files")

    @Test func theBinaryCarriesEveryFileOfTheFolderAsItIs() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { !$0.hasPrefix(".") }
        #expect(Set(names) == Set(SiteConsoleFiles.files.keys))
        #expect(names.contains("layout.mustache") && names.contains("console.css") && names.contains("console.js"))
        for name in names {
            var text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            if text.hasSuffix("\n") { text.removeLast() }
            #expect(SiteConsoleFiles.files[name] == text, "\(name) differs from its file")
        }
        #expect(ConsoleAssets.css == SiteConsoleFiles.files["console.css"] && ConsoleAssets.javascript.contains("'use strict'"))
    }

    @Test func everyTemplateIsRegisteredUnderItsName() {
        for name in SiteConsoleFiles.files.keys where name.hasSuffix(".mustache") {
            let template = String(name.dropLast(".mustache".count))
            #expect(ConsoleTemplates.library.getTemplate(named: template) != nil, "\(template)")
        }
    }
}
