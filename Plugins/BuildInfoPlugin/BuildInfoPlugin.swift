import Foundation
import PackagePlugin

/// Writes the version (the repository's `VERSION` file) and the git revision of the tree
/// being built into a Swift file of the target it is applied to, before every build. The
/// script rewrites the file only when its text changes, so an unchanged revision recompiles
/// nothing.
@main struct BuildInfoPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
    let script = context.package.directoryURL.appendingPathComponent(
      "Plugins/BuildInfoPlugin/write-build-info.sh")
    return [
      .prebuildCommand(
        displayName: "Build info for \(target.name)",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: [
          script.path, context.package.directoryURL.path,
          output.appendingPathComponent("GeneratedBuildInfo.swift").path,
        ],
        outputFilesDirectory: output)
    ]
  }
}
