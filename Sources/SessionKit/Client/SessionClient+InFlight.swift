/// Requests whose HTTP exchange is in flight. Each is registered with the generation it was sent in, so
/// the end of a session cancels it at once with a clear error, instead of letting it wait for a response
/// that would be discarded anyway.
extension SessionClient {
    /// An exchange in flight and the caller waiting for it.
    struct InFlightRequest: Sendable {
        let generation: SessionGeneration
        let continuation: CheckedContinuation<AuthAPI.ResourceOutcome?, Never>
        let call: Task<Void, Never>
    }

    /// Sends the resource request with `ticket`; `nil` when the session ended while it was in flight.
    func send(_ resource: String, with ticket: RequestTicket) async -> AuthAPI.ResourceOutcome? {
        let id = makeWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<AuthAPI.ResourceOutcome?, Never>) in
                guard machine.isCurrent(ticket) else { return continuation.resume(returning: nil) }
                let api = api
                let call = Task(executorPreference: environment.taskExecutor) {
                    let outcome = await api.resource(resource, ticket.accessToken)
                    await self.completeInFlight(id, outcome)
                }
                inFlight[id] = InFlightRequest(generation: ticket.generation, continuation: continuation, call: call)
            }
        } onCancel: {
            Task(executorPreference: environment.taskExecutor) { await self.cancelInFlight(id) }
        }
    }

    private func completeInFlight(_ id: UInt64, _ outcome: AuthAPI.ResourceOutcome) {
        // A response for a request the session end already cancelled goes nowhere.
        inFlight.removeValue(forKey: id)?.continuation.resume(returning: outcome)
    }

    private func cancelInFlight(_ id: UInt64) {
        guard let request = inFlight.removeValue(forKey: id) else { return }
        request.call.cancel()
        request.continuation.resume(returning: .failed(.cancelled))
    }

    /// Cancels every request sent in an older generation than the current one.
    func cancelStaleInFlight(current: SessionGeneration) -> Int {
        // DEFECT no-generation-check-on-responses: requests carry no generation, so nothing in flight is known
        // to be stale when a session ends.
        if defects.contains(.noGenerationCheckOnResponses) { return 0 }
        let stale = inFlight.filter { $0.value.generation != current }
        for (id, request) in stale.sorted(by: { $0.key < $1.key }) {
            inFlight[id] = nil
            request.call.cancel()
            request.continuation.resume(returning: nil)
        }
        return stale.count
    }
}
