import Dispatch
import Foundation
import Synchronization
import Testing

@testable import TrafficServer

/// Admission control: no client and no route class holds every worker, a client with many
/// waiting requests gets its turn like one with a single request, and every request gets
/// exactly one answer — run, or refused.
@Suite struct AdmissionControlTests {
  /// Jobs that block until released, recording the order they started in.
  final class Gate: Sendable {
    let started = Mutex<[String]>([])
    let refused = Mutex<[String: AdmissionControl.Refusal]>([:])
    let release = DispatchSemaphore(value: 0)
    let ran = DispatchSemaphore(value: 0)

    func submit(
      _ control: AdmissionControl, _ name: String, client: String,
      lane: AdmissionControl.Lane = .routes
    ) {
      control.submit(
        lane: lane, client: client,
        run: { [self] in
          started.withLock { $0.append(name) }
          ran.signal()
          release.wait()
        },
        refuse: { [self] reason in
          refused.withLock { $0[name] = reason }
          ran.signal()
        })
    }

    /// Waits until `count` more jobs started or were refused.
    func wait(_ count: Int) {
      for _ in 0..<count { #expect(ran.wait(timeout: .now() + 5) == .success) }
    }

    func startedNames() -> [String] { started.withLock { $0 } }
  }

  @Test func aClassNeverHoldsEveryWorkerAndAClientOnlyItsShare() {
    let control = AdmissionControl(workers: 3, perClientRunning: 2)
    let gate = Gate()
    // Three route searches of three clients: the class holds two workers, not three.
    for k in 0..<3 { gate.submit(control, "route\(k)", client: "c\(k)") }
    gate.wait(2)
    #expect(control.counts.running == 2)
    #expect(control.counts.waiting == 1)
    // A query of another class takes the third worker at once.
    gate.submit(control, "query", client: "c9", lane: .queries)
    gate.wait(1)
    #expect(gate.startedNames().contains("query"))
    for _ in 0..<4 { gate.release.signal() }
    gate.wait(1)
    #expect(Set(gate.startedNames()) == ["route0", "route1", "route2", "query"])
  }

  @Test func clientsTakeTurnsWhateverTheyHaveWaiting() {
    let control = AdmissionControl(workers: 1)
    let gate = Gate()
    gate.submit(control, "a0", client: "a", lane: .queries)
    gate.wait(1)
    // a queues five more, then b one: b runs second, not sixth.
    for k in 1...5 { gate.submit(control, "a\(k)", client: "a", lane: .queries) }
    gate.submit(control, "b0", client: "b", lane: .queries)
    for _ in 0..<3 {
      gate.release.signal()
      gate.wait(1)
    }
    #expect(gate.startedNames() == ["a0", "a1", "b0", "a2"])
    for _ in 0..<4 { gate.release.signal() }
    gate.wait(3)
    #expect(gate.startedNames().count == 6 + 1)
  }

  @Test func aClientWithTooManyWaitingIsRefusedAtOnceAndALateOneOnceItsDeadlinePasses() {
    let control = AdmissionControl(workers: 1, perClientWaiting: 2, deadlineSeconds: 0.2)
    let gate = Gate()
    gate.submit(control, "running", client: "a")
    gate.wait(1)
    gate.submit(control, "w1", client: "a")
    gate.submit(control, "w2", client: "a")
    gate.submit(control, "w3", client: "a")
    gate.wait(1)
    #expect(gate.refused.withLock { $0 } == ["w3": .clientQueueFull])
    // Past the deadline the waiting ones are answered: refused, never left hanging.
    Thread.sleep(forTimeInterval: 0.3)
    control.expire()
    gate.wait(2)
    #expect(gate.refused.withLock { $0["w1"] } == .deadlinePassed)
    #expect(gate.refused.withLock { $0["w2"] } == .deadlinePassed)
    #expect(control.counts.expired == 2)
    #expect(control.counts.refused == 1)
    // A server stopping refuses what waits, at once.
    gate.submit(control, "w4", client: "c")
    control.refuseWaiting()
    gate.wait(1)
    #expect(gate.refused.withLock { $0["w4"] } == .deadlinePassed)
    gate.release.signal()
    // The worker is free again: the next job runs.
    gate.submit(control, "next", client: "b")
    gate.wait(1)
    #expect(gate.startedNames() == ["running", "next"])
    gate.release.signal()
  }
}

/// Admission control in the running server, over the socket.
@Suite(.serialized) struct AdmissionOverTheSocketTests {
  @Test func whileTheWorkersAreHeldCheapRoutesAnswerAndAWaitingQueryGets503NotAClose()
    async throws
  {
    var configuration = HTTPFrontEndTests.quietLoopback()
    configuration.admissionDeadlineSeconds = 1
    let (server, port) = try HTTPFrontEndTests.started(configuration)
    defer { server.stop() }
    // Both workers held: one by a route search, one by a publication.
    let release = DispatchSemaphore(value: 0)
    let held = DispatchSemaphore(value: 0)
    for lane in [AdmissionControl.Lane.routes, .publications] {
      server.admission.submit(
        lane: lane, client: "holder-\(lane)",
        run: {
          held.signal()
          release.wait()
        }, refuse: { _ in })
    }
    #expect(held.wait(timeout: .now() + 5) == .success)
    #expect(held.wait(timeout: .now() + 5) == .success)
    // Cheap routes answer meanwhile.
    #expect(try await HTTPFrontEndTests.fetch(port, "/healthz").status == 200)
    // An uncached query waits for a worker, and past the deadline gets a 503 to retry.
    let started = ContinuousClock.now
    let waiting = try await HTTPFrontEndTests.fetch(
      port, "/v7/incidents?in=circle:52.52,13.40;r=777")
    #expect(waiting.status == 503)
    #expect(waiting.header("Retry-After") == "1")
    #expect(started.duration(to: .now) < .seconds(5))
    release.signal()
    release.signal()
    // Workers free again: the same query is answered.
    let answered = try await HTTPFrontEndTests.fetch(
      port, "/v7/incidents?in=circle:52.52,13.40;r=777")
    #expect(answered.status == 200)
  }
}
