/// The console's one stylesheet and one script (`Files/console.css`, `Files/console.js`,
/// embedded at build time), served from `/console/static/` (the
/// Content-Security-Policy allows only these): plain CSS readable on a phone, and the
/// script that keeps the Doors and Who entered pages live by short polling. It builds rows
/// with `textContent`, never HTML from data.
enum ConsoleAssets {
    static let css = SiteConsoleFiles.files["console.css", default: ""]
    static let javascript = SiteConsoleFiles.files["console.js", default: ""]
}
