import DatebookDelivery

/// The scheduler's seam to the network: `Deliverer` in production, a scripted fake in tests.
///
/// Contract (as `Deliverer`): `onOutcome` runs on the calling thread once per step, as soon as
/// that step's result is known.
public protocol DeliverySending {
    func deliver(_ steps: [DeliveryStep], onOutcome: (Int, DeliveryOutcome) -> Void)
}

extension Deliverer: DeliverySending {}
