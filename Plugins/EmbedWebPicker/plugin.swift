import Foundation
import PackagePlugin

/// Embeds the package's `WebPicker/` files (HTML, CSS, JavaScript) into the target as
/// generated Swift source, as EmbedMigrations does for the SQL: the server needs no
/// files on disk and no `Bundle`.
@main
struct EmbedWebPicker: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "WebPicker")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path())) ?? []
        let inputs = names.filter { $0.hasSuffix(".html") || $0.hasSuffix(".css") || $0.hasSuffix(".js") }.sorted()
            .map { directory.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedWebPicker+Generated.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) web picker files",
                executable: try context.tool(named: "WebPickerEmbedder").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
