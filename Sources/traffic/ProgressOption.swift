import Codec

/// `--quiet`, and the progress reporter of a long command (see `ProgressReporter`): on
/// standard error, a line redrawn in place on a terminal, a line every ten seconds
/// otherwise. Output on standard output (`--json` included) never carries progress.
enum ProgressOption {
  static let definition = OptionDefinition(
    flag: "--quiet", "no progress on standard error (a terminal line, or a line every 10 s)")

  /// The reporter for a command: quiet with `--quiet`; in-process runs (tests) pass their
  /// console's error stream, the program its standard error.
  static func reporter(_ arguments: inout ArgumentList, console: Console) -> ProgressReporter {
    let quiet = arguments.flag("--quiet")
    if console.isStandard { return ProgressReporter.standardError(quiet: quiet) }
    return ProgressReporter(
      mode: quiet ? .quiet : console.progressMode, terminalInterval: console.progressInterval,
      write: console.writeError)
  }
}
