import Foundation
import PackagePlugin

/// Embeds the package's `Migrations/*.sql` (the library's) and `Migrations/user-state/*.sql`
/// (the user state's) into the target as generated Swift source.
///
/// SwiftPM will not take a resource from outside a target's folder, and `Bundle.module`
/// is fragile on Linux, so the SQL becomes string literals at build time.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let migrationsDirectory = context.package.directoryURL.appending(path: "Migrations")
        let inputs = [migrationsDirectory, migrationsDirectory.appending(path: "user-state")].flatMap { directory in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path())) ?? []
            return names.filter { $0.hasSuffix(".sql") }.sorted().map { directory.appending(path: $0) }
        }
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
