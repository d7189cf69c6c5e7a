// Runs the map code of HERE's traffic guide against the headless MapView and writes the
// pictures: map-traffic OUTPUT_FOLDER [--network SUMO.net.xml | --built-in]
import Foundation
import Traffic

let arguments = Array(CommandLine.arguments.dropFirst())
guard let folder = arguments.first, !folder.hasPrefix("--") else {
  FileHandle.standardError.write(
    Data("usage: map-traffic OUTPUT_FOLDER [--network FILE.net.xml | --built-in]\n".utf8))
  exit(2)
}
var network: URL? =
  FileManager.default.fileExists(atPath: SampleTraffic.sumoNetwork.path)
  ? SampleTraffic.sumoNetwork : nil
if let index = arguments.firstIndex(of: "--network"), index + 1 < arguments.count {
  network = URL(fileURLWithPath: arguments[index + 1])
}
if arguments.contains("--built-in") { network = nil }
let sample = try SampleTraffic.make(network: network, now: Date())
_ = try await runMapExample(sample, folder: URL(fileURLWithPath: folder))
_ = try trafficAlongRoute(sample)
