import AdapterKit

/// The one executor of the client, for the whole process: `main.swift` gives it to the host, the client's actors are
/// isolated to it, and every task the client starts prefers it (an unstructured `Task {}` does not inherit the
/// preference: a nonisolated `async` call it makes, such as an effect of AdapterKit, would run on the global pool).
/// So every job of the client runs on the host's thread, and "no job queued" means the client is idle.
let clientExecutor = ClientExecutor()

/// The client's actor: the app's session code runs on the host's thread.
@globalActor actor ClientActor {
    static let shared = ClientActor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { clientExecutor.asUnownedSerialExecutor() }
}
