import Foundation
import PackagePlugin

/// Embeds the package's `Migrations/*.sql` into the target as generated Swift source.
///
/// SwiftPM will not take a resource from outside a target's folder, and `Bundle.module`
/// is fragile on Linux, so the SQL becomes string literals at build time.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let migrationsDirectory = context.package.directoryURL.appending(path: "Migrations")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: migrationsDirectory.path())) ?? []
        let inputs = names.filter { $0.hasSuffix(".sql") }.sorted()
            .map { migrationsDirectory.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations+Generated.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) schema migrations",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
