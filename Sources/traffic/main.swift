// jemalloc replaces the C library's allocator in this process (linked by the import): the
// probe import's last phase spent a fifth of its time in glibc's malloc and free; with
// jemalloc probe imports and pushes were 10–15 % faster (docs/performance.md).
import CJemalloc
import Codec
import Foundation

// Before anything opens a file: a closed standard output must not become a file's number.
StandardStream.occupyClosedDescriptors()
// Argument handling only; the work happens in the libraries.
let status = await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
