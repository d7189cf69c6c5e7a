import Foundation

// Argument handling only; the work happens in the libraries.
let status = CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
