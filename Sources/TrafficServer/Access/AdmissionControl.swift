import Dispatch
import Synchronization

/// Fair share of the expensive work among clients and route classes.
///
/// Requests of an expensive class (route searches, publications, uncached area queries,
/// tile renders) do not run on the socket layer's threads: they wait here and run on
/// `workers` threads of their own, so that cheap requests (health, cached answers, static
/// files) are never queued behind them. Three bounds keep any one party from holding every
/// worker:
/// - a class runs on at most `workers - 1` workers at once (all of them with one worker),
///   so another class always finds one;
/// - a client (API key, else address) runs at most `perClientRunning` requests at once and
///   has at most `perClientWaiting` waiting; more are answered 503 at once;
/// - the next request to run is taken round-robin over the clients that wait, so a client
///   with many waiting requests gets its turn like one with a single request.
///
/// A request that waited `deadlineSeconds` without starting is answered 503 with
/// `Retry-After`, never left without an answer.
final class AdmissionControl: Sendable {
  /// The expensive route classes.
  enum Lane: Int, CaseIterable, Sendable {
    case routes, publications, queries, tiles
  }

  /// Why a request was not run: the client waits too many already, or it waited too long.
  enum Refusal: Sendable, Equatable {
    case clientQueueFull
    case deadlinePassed
    /// The server stopped before the request's work answered (its connection cannot wait).
    case stopping
  }

  /// A request waiting: what to do when it may run, or when it is refused.
  private struct Job {
    var lane: Lane
    var client: String
    var enqueued: ContinuousClock.Instant
    var run: @Sendable () -> Void
    var refuse: @Sendable (Refusal) -> Void
  }

  private struct State {
    /// Waiting jobs by client, in arrival order.
    var waiting: [String: [Job]] = [:]
    /// The clients with waiting jobs, in round-robin order.
    var turn: [String] = []
    var runningByLane = [Int](repeating: 0, count: Lane.allCases.count)
    var runningByClient: [String: Int] = [:]
    var waitingCount = 0
    var running = 0
    var refused = 0
    var expired = 0
  }

  let workers: Int
  let perClientRunning: Int
  let perClientWaiting: Int
  let deadlineSeconds: Double
  private let state = Mutex(State())
  private let queue = DispatchQueue(
    label: "traffic.admission", qos: .userInitiated, attributes: .concurrent)

  init(
    workers: Int, perClientRunning: Int? = nil, perClientWaiting: Int = 16,
    deadlineSeconds: Double = 10
  ) {
    self.workers = max(1, workers)
    self.perClientRunning = perClientRunning ?? max(1, (self.workers + 1) / 2)
    self.perClientWaiting = max(1, perClientWaiting)
    self.deadlineSeconds = deadlineSeconds
  }

  /// The most workers one class may hold.
  var perLaneRunning: Int { max(1, workers - 1) }

  /// Queues `run` for `client` in `lane`; `refuse` is called instead (at once, or once its
  /// deadline passes) when it cannot run. Exactly one of the two is called.
  func submit(
    lane: Lane, client: String, run: @escaping @Sendable () -> Void,
    refuse: @escaping @Sendable (Refusal) -> Void
  ) {
    let job = Job(lane: lane, client: client, enqueued: .now, run: run, refuse: refuse)
    let accepted = state.withLock { state -> Bool in
      let waiting = state.waiting[client]?.count ?? 0
      guard waiting < perClientWaiting else {
        state.refused += 1
        return false
      }
      if waiting == 0 { state.turn.append(client) }
      state.waiting[client, default: []].append(job)
      state.waitingCount += 1
      return true
    }
    guard accepted else {
      // Never on the caller's thread: the socket layer has just suspended the connection.
      queue.async { refuse(.clientQueueFull) }
      return
    }
    pump()
  }

  /// Refuses the jobs that waited past the deadline (the socket layer's sweeper calls it
  /// twice a second).
  func expire() {
    expire(enqueuedBefore: ContinuousClock.now - .milliseconds(Int64(deadlineSeconds * 1000)))
  }

  /// Refuses every waiting job (a server stopping: their connections must resume before
  /// libmicrohttpd stops); the running ones finish.
  func refuseWaiting() {
    expire(enqueuedBefore: .now + .seconds(1))
  }

  private func expire(enqueuedBefore deadline: ContinuousClock.Instant) {
    let late = state.withLock { state -> [Job] in
      var late: [Job] = []
      for client in state.turn {
        guard var jobs = state.waiting[client] else { continue }
        let before = jobs.count
        late += jobs.filter { $0.enqueued < deadline }
        jobs.removeAll { $0.enqueued < deadline }
        state.waitingCount -= before - jobs.count
        state.waiting[client] = jobs.isEmpty ? nil : jobs
      }
      state.turn.removeAll { state.waiting[$0] == nil }
      state.expired += late.count
      return late
    }
    for job in late { job.refuse(.deadlinePassed) }
  }

  /// Starts the waiting jobs that may run now.
  private func pump() {
    while let job = state.withLock({ Self.next(&$0, self) }) {
      queue.async { [self] in
        job.run()
        state.withLock { state in
          state.running -= 1
          state.runningByLane[job.lane.rawValue] -= 1
          let count = (state.runningByClient[job.client] ?? 1) - 1
          state.runningByClient[job.client] = count > 0 ? count : nil
        }
        pump()
      }
    }
  }

  /// Takes the next job that may run, round-robin over the waiting clients, and counts it
  /// as running; `nil` when none may.
  private static func next(_ state: inout State, _ control: AdmissionControl) -> Job? {
    guard state.running < control.workers, !state.turn.isEmpty else { return nil }
    for offset in 0..<state.turn.count {
      let client = state.turn[offset]
      guard (state.runningByClient[client] ?? 0) < control.perClientRunning,
        var jobs = state.waiting[client],
        let index = jobs.firstIndex(where: {
          state.runningByLane[$0.lane.rawValue] < control.perLaneRunning
        })
      else { continue }
      let job = jobs.remove(at: index)
      state.waiting[client] = jobs.isEmpty ? nil : jobs
      state.turn.remove(at: offset)
      // The client goes to the back of the turn when it has more waiting.
      if !jobs.isEmpty { state.turn.append(client) }
      state.waitingCount -= 1
      state.running += 1
      state.runningByLane[job.lane.rawValue] += 1
      state.runningByClient[client, default: 0] += 1
      return job
    }
    return nil
  }

  /// What `/metrics` shows: waiting and running now, refused and expired so far.
  var counts: (waiting: Int, running: Int, refused: Int, expired: Int) {
    state.withLock { ($0.waitingCount, $0.running, $0.refused, $0.expired) }
  }
}
