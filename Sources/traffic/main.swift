import Foundation

// Argument handling only; the work happens in the libraries.
let status = await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
