/// A session end is told only once it is durable (`finish`), which takes storage round trips. Transitions the
/// machine takes meanwhile wait behind it, so they are told in the order they happened.
extension SessionClient {
    enum PendingEmission {
        /// Reserved by a session end that is not durable yet.
        case reserved(UInt64)
        case ready([SessionTransition])
    }

    /// Reserves the place of transitions to be told later; every transition emitted meanwhile waits behind it.
    func reserveEmission() -> UInt64 {
        let slot = makeWaiterID()
        pendingEmissions.append(.reserved(slot))
        return slot
    }

    /// Fills a reserved place and tells every transition that no earlier reservation still holds back.
    func fillEmission(_ slot: UInt64, with transitions: [SessionTransition]) {
        if let position = pendingEmissions.firstIndex(where: {
            if case .reserved(let reserved) = $0 { return reserved == slot }
            return false
        }) {
            pendingEmissions[position] = .ready(transitions)
        }
        while let first = pendingEmissions.first, case .ready(let ready) = first {
            pendingEmissions.removeFirst()
            for transition in ready {
                logger.transition(transition)
                environment.events.record(transition)
            }
        }
    }
}
