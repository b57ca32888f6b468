import DatebookDelivery

/// The scheduler's seam to the network: `Deliverer` in production, a scripted fake in tests.
///
/// Contract (as `Deliverer`): `starting` runs on the calling thread before any transfer starts,
/// with the steps about to start their first transfer (none before a later part), and returns
/// those that may (a refused step is never sent and gets no outcome); `onOutcomes` runs on the
/// calling thread with the outcomes that arrived together, and the connection or worker of each
/// starts no further transfer until it returns; after it, `starting` is called (with no steps
/// when none starts) before the sender waits for anything, or `deliver` returns, and at least
/// every 200 ms while it waits. So an outcome recorded there, or held and recorded at a later
/// `starting` (the scheduler's way: `GroupCommit`, one transaction with the fences), never waits
/// for a transfer to be written, and is written within one such interval once the caller wants
/// it. `maxInFlight` bounds the deliveries accepted but not yet reported.
public protocol DeliverySending {
    var maxInFlight: Int { get }
    func deliver(_ steps: [DeliveryStep], starting: ([Int]) -> Set<Int>,
                 onOutcomes: ([(index: Int, outcome: DeliveryOutcome)]) -> Void)
}

extension Deliverer: DeliverySending {}
