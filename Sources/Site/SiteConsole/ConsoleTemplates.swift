import Mustache

/// The console's pages as Mustache templates, the files `Files/*.mustache` beside this one
/// (embedded at build time: ``SiteConsoleFiles``). `{{name}}` is HTML-escaped; only
/// `{{{body}}}` (a page already rendered, so already escaped) is not. No inline script or
/// style: the Content-Security-Policy forbids them.
enum ConsoleTemplates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (file, text) in SiteConsoleFiles.files where file.hasSuffix(".mustache") {
            // The templates are files of this target; a parse error is a bug caught by every test.
            try! library.register(text, named: String(file.dropLast(".mustache".count)))
        }
        return library
    }()
}
