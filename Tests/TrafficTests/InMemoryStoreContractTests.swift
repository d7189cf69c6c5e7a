import Testing
import Traffic
import TrafficStoreContract

/// The shared `TrafficStore` contract on `InMemoryTrafficStore` (not durable: the reopen
/// check does not apply).
@Suite struct InMemoryStoreContractTests {
  @Test(arguments: StoreContract.checks)
  func contract(_ check: StoreContractCheck) throws {
    try check.run(on: StoreHarness(makeStore: { InMemoryTrafficStore() }))
  }
}
