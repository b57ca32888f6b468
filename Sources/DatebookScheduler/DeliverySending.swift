import DatebookDelivery

/// The scheduler's seam to the network: `Deliverer` in production, a scripted fake in tests.
///
/// Contract (as `Deliverer`): `starting` runs on the calling thread before any transfer starts,
/// with the steps about to start their first transfer (none before a later part), and returns
/// those that may (a refused step is never sent and gets no outcome); `onOutcomes` runs on the
/// calling thread with the outcomes that arrived together, and the connection or worker of each
/// starts no further transfer until it returns; after it, `starting` is called (with no steps
/// when none starts) before the sender waits for anything, or `deliver` returns. So an outcome
/// recorded there, or held and recorded at the next `starting` (the scheduler's way: one
/// transaction with that fence), is in the ledger before the next transfer it could duplicate,
/// and never waits for a transfer to be written. `maxInFlight` bounds the deliveries accepted but
/// not yet reported.
public protocol DeliverySending {
    var maxInFlight: Int { get }
    func deliver(_ steps: [DeliveryStep], starting: ([Int]) -> Set<Int>,
                 onOutcomes: ([(index: Int, outcome: DeliveryOutcome)]) -> Void)
}

extension Deliverer: DeliverySending {}
