import DatebookDelivery

/// The scheduler's seam to the network: `Deliverer` in production, a scripted fake in tests.
///
/// Contract (as `Deliverer`): `onOutcomes` runs on the calling thread with the outcomes that
/// arrived together, and the connection or worker of each starts no further transfer until it
/// returns; so an outcome recorded there is in the ledger before the next transfer it could
/// duplicate. `maxInFlight` bounds the deliveries accepted but not yet reported.
public protocol DeliverySending {
    var maxInFlight: Int { get }
    func deliver(_ steps: [DeliveryStep], onOutcomes: ([(index: Int, outcome: DeliveryOutcome)]) -> Void)
}

extension Deliverer: DeliverySending {}
