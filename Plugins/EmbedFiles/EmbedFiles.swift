import Foundation
import PackagePlugin

/// Embeds the files in a target's `Files` folder into it at build time, as the type
/// `<Target>Files` (`SiteConsoleFiles.files["layout.mustache"]`), so the templates, CSS and
/// script are files in the source tree and the program needs nothing installed beside it.
@main
struct EmbedFilesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Files")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
        let inputs = names.map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(target.name)Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(names.count) files in \(target.name)",
                executable: try context.tool(named: "embed-files").url,
                arguments: [output.path, "\(target.name)Files"] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
