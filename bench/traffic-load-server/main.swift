// A traffic server on generated incidents, for bench/load.sh:
//   traffic-load-server [--count N] [--host H] [--port P] [--threads T] [--log] [--no-cache]
// (--no-cache turns the response cache off, to measure the query and encoding path)
// Prints "listening on HOST:PORT" once it serves, then runs until SIGINT/SIGTERM.
import Foundation
import Geo
import Traffic
import TrafficServer

var count = 100_000
var host = "127.0.0.1"
var port = 8080
var threads = ProcessInfo.processInfo.activeProcessorCount
var log = false
var cacheEntries = ServerConfiguration().responseCacheEntries
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--count": count = arguments.popFirst().flatMap { Int($0) } ?? count
  case "--host": host = arguments.popFirst() ?? host
  case "--port": port = arguments.popFirst().flatMap { Int($0) } ?? port
  case "--threads": threads = arguments.popFirst().flatMap { Int($0) } ?? threads
  case "--log": log = true
  case "--no-cache": cacheEntries = 0
  default:
    FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
    exit(64)
  }
}
do {
  let server = try LoadServer.make(
    incidentCount: count,
    configuration: ServerConfiguration(
      host: host, port: port, threads: threads, accessLog: log ? .standardError : .none,
      responseCacheEntries: cacheEntries))
  try server.start()
  FileHandle.standardOutput.write(
    Data(
      "listening on \(host):\(server.port ?? port) with \(server.engine.incidentCount) incidents\n"
        .utf8))
  try server.run()
} catch {
  FileHandle.standardError.write(Data("traffic-load-server: \(error)\n".utf8))
  exit(1)
}
