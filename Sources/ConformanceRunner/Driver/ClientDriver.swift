import ConformanceProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONCore
import LoopbackHTTP
import SpecModel
import SimulatedWorld

/// Plays the world for one case: starts and kills the client, delivers commands, answers every effect
/// (now, later, or never), moves the virtual clock, and records the trace. Single-threaded by design.
final class ClientDriver {
    /// Effect rounds one step may take before the client counts as running away (a retry loop, say):
    /// a base, plus room for clients that work through pending commands one round at a time.
    static let baseRounds = 2_000
    static let roundsPerPendingCommand = 20

    private(set) var world: World
    private(set) var trace = Trace()
    private let launcher: any AdapterLauncher
    private var connection: (any AdapterConnection)?
    /// The world's HTTP on 127.0.0.1, when the running client asked for loopback HTTP.
    private var loopback: LoopbackBridge?
    /// The port the case's first loopback server got; every later process of the case is served there.
    private var loopbackPort: UInt16?
    /// The case's loopback port while no server listens on it (between a kill and the relaunch).
    private var portReservation: LoopbackPortReservation?
    private let seed: UInt64

    private(set) var hello: (implementation: ImplementationInfo, capabilities: [String])?
    private(set) var instance = 0
    private(set) var step = 0
    private var commandCounter = 0
    private var barrierCounter = 0
    /// The kill point a `kill: { at: ... }` step armed and that has not landed yet (see `endStep`).
    private var armedKill: ArmedKill?
    /// The step (0-based) that armed the kill point which ended the last process, until a launch starts another.
    private var killPointLanded: Int?
    /// HTTP effects the case holds back, in arrival order.
    private var held: [(id: String, request: HTTPRequestMessage)] = []
    /// Held requests the client abandoned while the clock moved (its own deadline), with the step that moved it.
    private var heldAbandonedOnDeadline: [(step: Int, request: HTTPRequestMessage)] = []
    /// Whether the current step is moving the clock: an abandon meanwhile is the client's deadline.
    private var clockMoving = false
    private var sleeps: [(id: String, deadline: Double)] = []
    /// The effects the running process sent, by id, with their type; and those answered or abandoned since.
    private var effectTypes: [String: String] = [:]
    private var closedEffects: Set<String> = []
    private(set) var pendingCommands: [String: AppCommand] = [:]
    /// Everything the client logged to stderr, across instances.
    private(set) var capturedLog = ""
    /// Set by a `schedule` step: the world's order of answers at each barrier. Nil: the canonical order.
    var schedule: BarrierSchedule?

    /// With `.resets`, a kill ends the client instance but keeps its process for a `reset`: the process is
    /// released as at a case's end and the next instance is a reset one. Only an adapter that declared `reset`
    /// is kept; any other is killed as usual.
    private let restarts: ClientRestarts

    init(launcher: any AdapterLauncher, seed: UInt64, profile: WorldProfile = .jsonV1, restarts: ClientRestarts = .processDeaths) {
        self.launcher = launcher
        self.seed = seed
        self.restarts = restarts
        world = World(seed: seed, profile: profile)
    }

    var isRunning: Bool { connection != nil }
    var heldCount: Int { held.count }

    func beginStep(_ index: Int, kind: String) {
        step = index
        connection?.beginStep()
        record(.stepStarted(index: index, kind: kind))
    }

    func note(_ text: String) { record(.world(text)) }

    // MARK: The world, changed by steps

    func configure(_ settings: ServerSettings) { world.configure(settings) }
    func addFault(path: String, kind: FaultKind, times: Int) { world.addFault(path: path, kind: kind, times: times) }
    func addStorageFault(_ kind: StorageFaultKind, times: Int) { world.addStorageFault(kind, times: times) }
    func hold(_ path: String) { world.hold(path) }
    func skewClock(_ seconds: Double) throws(AdapterFailure) {
        world.skew = seconds
        if isRunning { try send(.clock(world.deviceClock)) }
    }

    func revoke(account: String) {
        guard let id = WorldAccount.named(account)?.id else { return }
        world.auth.revokeAll(account: id)
        note("server revoked every session of \(account)")
    }

    func setOnline(_ online: Bool) { world.online = online }

    /// The held requests matching `path` that the client abandoned on its own deadline, oldest first, in this
    /// process and not taken yet: a `release` of the path takes them.
    func takeAbandonedOnDeadline(matching path: String) -> [(step: Int, request: HTTPRequestMessage)] {
        let taken = heldAbandonedOnDeadline.filter { world.matches(pattern: path, $0.request) }
        heldAbandonedOnDeadline.removeAll { world.matches(pattern: path, $0.request) }
        return taken
    }

    /// Before the step that may send a request a later `refreshDue` finds held (`HeldClockRule.approaches`): the
    /// clock moves to `HeldClockRule.expiryApproach` seconds short of the access tokens' expiry, so that the
    /// `refreshDue` crosses it in a step shorter than any client's request deadline.
    func approachExpiry() throws(AdapterFailure) {
        let seconds = world.secondsUntilAccessTokensExpire - HeldClockRule.expiryApproach
        guard seconds > 0 else { return }
        note("the clock moves \(Int(seconds.rounded(.up))) s, to \(Int(HeldClockRule.expiryApproach)) s short of the access tokens' expiry: "
             + "a request held at refreshDue must not outlive a client's own deadline")
        try advance(by: seconds)
    }

    /// A `refreshDue` step under `trigger`: what makes a refresh due for a client with that trigger. With
    /// `heldLimit`, a request held meanwhile bounds the clock's move (`HeldClockRule`).
    func makeRefreshDue(by trigger: RefreshTrigger, heldLimit: Bool = false) throws(AdapterFailure) {
        switch trigger {
        case .unauthorized:
            world.auth.expireAccessTokens(at: world.serverTime)
            note("refresh due (unauthorized): the server stops accepting every access token issued so far; the client's clock is not moved")
        case .expiry, .background:
            // One second past the newest token's expiry: every client clock, proactive or not, counts it expired.
            // A client that refreshes ahead of expiry on a timer of its own starts its refresh on the way: the clock
            // stops there, so what follows meets the refresh just started, as it meets a client's that refreshes when
            // a request finds the token expired.
            var seconds = world.secondsUntilAccessTokensExpire.rounded(.up) + 1
            let bound = HeldClockRule.expiryApproach + 1
            if heldLimit, !held.isEmpty, seconds > bound {
                // A token issued since the approach (the client refreshed ahead of expiry): its expiry is too far
                // to reach while a request is held, and this variant shows nothing a refresh is due for.
                note("refresh due (\(trigger.rawValue)): a request is held and the newest access token expires in \(Int(seconds - 1)) s: "
                     + "the clock moves \(Int(bound)) s only, less than a client's own request deadline")
                seconds = bound
            } else {
                note("refresh due (\(trigger.rawValue)): the clock moves \(Int(seconds)) s, past the expiry of every access token issued so far")
            }
            try advance(by: seconds, untilRefresh: true)
            if trigger == .background, isRunning { try command(.backgroundRefresh) }
        }
        // The client's refresh may start in the next step (the request that finds the token expired): a kill
        // point armed before this step waits for it.
        armedKill?.due = false
    }

    func setLocked(_ locked: Bool) {
        world.storage.locked = locked
        if !locked { world.storage.unlockedSinceBoot = true }
    }

    /// The device restarts: the client dies and secure storage stays sealed until the first unlock.
    func reboot() {
        kill(reason: "the device restarted")
        world.storage.locked = true
        world.storage.unlockedSinceBoot = false
        note("device restarted: locked, not unlocked since boot")
    }

    /// A `kill` step. `now` kills the running process at once (with none running it is a no-op, noted); any
    /// other point arms a kill that lands on the client's next storage change. Either way the step replaces a
    /// kill point still armed.
    func kill(at point: KillPoint) {
        if let armed = armedKill {
            armedKill = nil
            note("kill point \(armed.point.rawValue) armed at step \(armed.step + 1) disarmed: replaced by this kill step")
        }
        guard point == .now else {
            armedKill = ArmedKill(point: point, step: step)
            return
        }
        if isRunning {
            kill(reason: "killed by the case")
        } else {
            note("kill: no client is running; nothing to kill")
        }
    }

    /// Ends the current step. A kill point is due once a later step drove the client (it settled, or its process
    /// ended another way); still armed at the end of such a step, it never will land: it disarms, and the reason
    /// returned makes the case inconclusive.
    func endStep() -> (reason: String, point: String)? {
        guard let armed = armedKill, armed.due else { return nil }
        armedKill = nil
        let reason = "kill point never reached (\(armed.point.rawValue), armed at step \(armed.step + 1))"
        note(reason + ": the client made no storage change; disarmed")
        return (reason, armed.point.rawValue)
    }

    // MARK: The client's lifetime

    /// Starts a client instance if none runs, then sends `launch`.
    func launch() throws(AdapterFailure) {
        if connection == nil {
            try start()
        } else if let armed = armedKill {
            note("launch sent to the running client instance \(instance); kill point \(armed.point.rawValue) armed at step \(armed.step + 1) waits for its storage change")
        }
        try command(.launch)
    }

    private func start() throws(AdapterFailure) {
        killPointLanded = nil
        instance += 1
        let connection = try launcher.launch(reusing: restarts == .resets || (instance == 1 && restarts == .processDeaths))
        self.connection = connection
        record(.processStarted(instance: instance))
        let first = try receive()
        guard case .hello(let version, let implementation, let capabilities, _, let httpMode, _, _) = first else {
            throw AdapterFailure(.protocolViolation, "the adapter's first message was not 'hello'", stderrTail: tail())
        }
        guard version == adapterProtocolVersion else {
            let message = "this runner speaks protocol \(adapterProtocolVersion); the adapter sent \(version)"
            try? send(.error(ProtocolErrorCode.protocolVersion.info(message)))
            kill(reason: "protocol version mismatch")
            throw AdapterFailure(.versionMismatch, message, stderrTail: tail())
        }
        hello = (implementation, capabilities)
        if httpMode == .loopback {
            // One port for the whole case: a restarted process finds the server at the URL it had, so caches
            // keyed by the token URL survive process death.
            let process = launcher as? ProcessAdapterLauncher
            let socket = launcher as? SocketAdapterLauncher
            let pinned = process?.loopbackPort ?? socket?.loopbackPort
            portReservation?.release()
            portReservation = nil
            let timeout = process?.timeout ?? socket?.timeout ?? .seconds(10)
            let bridge: LoopbackBridge
            if let port = loopbackPort, pinned == nil {
                bridge = try Self.rebind(port, timeout: timeout) { note($0) }
            } else {
                // The first process of the case, or a port pinned with --loopback-port.
                bridge = try LoopbackBridge(timeout: timeout, port: pinned ?? 0)
            }
            loopbackPort = bridge.port
            loopback = bridge
        }
        // Each process gets a seed of its own, as a real one gets fresh randomness: a client that draws
        // identifiers from it must not draw the same ones again after a restart.
        let processSeed = instance == 1 ? seed : SeededRandom.derive(seed, "process \(instance)")
        try send(.welcome(seed: processSeed, clock: world.deviceClock, httpBaseURL: loopback?.baseURL,
                          world: world.profile.welcomeDescription))
    }

    func kill(reason: String) {
        guard let connection else { return }
        if restarts == .resets {
            // Its log first: once released, another case may take the process and reset it.
            capturedLog += connection.capturedLog
            connection.release()
        } else {
            connection.kill()
            capturedLog += connection.capturedLog
        }
        self.connection = nil
        stopLoopback()
        record(.processKilled(instance: instance, reason: reason))
        held = []
        heldAbandonedOnDeadline = []
        sleeps = []
        effectTypes = [:]
        closedEffects = []
        schedule?.dropCarried()
        // A kill point still armed can no longer land on this process: it is due (see `endStep`).
        armedKill?.due = true
        pendingCommands = [:]
    }

    /// Sends commands at once (they may overlap), then waits until the client is idle.
    @discardableResult
    func command(_ kind: CommandKind, email: String? = nil, password: String? = nil, resource: String? = nil,
                 count: Int = 1) throws(AdapterFailure) -> [String] {
        // A kill point lands whenever the client makes its storage change, which may be a step earlier than the
        // case expected (a refresh the client started on its own timer): the commands until the next launch are
        // not sent, as a user cannot use an app that died.
        if connection == nil, let killedAt = killPointLanded {
            note("\(kind.rawValue) not sent: the app died at the kill point armed at step \(killedAt + 1) and was not launched again")
            return []
        }
        guard connection != nil else {
            throw AdapterFailure(.notRunning, "the app is not running: the case must 'launch' it first")
        }
        var ids: [String] = []
        for _ in 0..<count {
            commandCounter += 1
            let command = AppCommand(id: "c\(commandCounter)", kind: kind, email: email, password: password,
                                     resource: resource)
            pendingCommands[command.id] = command
            ids.append(command.id)
            try send(.command(command))
        }
        try settle()
        return ids
    }

    /// Releases held responses for a path, in the order the requests arrived, answering each as the server
    /// would now.
    func release(_ path: String) throws(AdapterFailure) {
        world.release(path)
        let released = held.filter { world.matches(pattern: path, $0.request) }
        held.removeAll { world.matches(pattern: path, $0.request) }
        for effect in released where connection != nil {
            try reply(effect.id, outcome: world.serve(effect.request))
        }
        if connection != nil { try settle() }
    }

    /// Moves time forward, waking the client's sleeps in deadline order and letting it settle after each.
    /// `untilRefresh`: the clock stops at the wake-up after which the client sent a refresh, and from then on the
    /// server refuses every access token issued before that moment, as it would once they expired.
    func advance(by seconds: Double, untilRefresh: Bool = false) throws(AdapterFailure) {
        clockMoving = true
        defer { clockMoving = false }
        let target = world.deviceClock.monotonic + seconds
        let first = trace.events.count
        while connection != nil,
              let next = sleeps.enumerated().min(by: { $0.element.deadline < $1.element.deadline }),
              next.element.deadline <= target {
            world.advance(by: max(0, next.element.deadline - world.deviceClock.monotonic))
            sleeps.remove(at: next.offset)
            try send(.clock(world.deviceClock))
            try send(.reply(id: next.element.id, .done))
            try settle()
            if untilRefresh, refreshSent(since: first) {
                world.auth.expireAccessTokens(at: world.serverTime, issuedBefore: world.serverTime)
                note("the client refreshed on its own, \(Int((target - world.deviceClock.monotonic).rounded())) s early: the clock stops here; "
                     + "the server refuses the access tokens issued before now")
                return
            }
        }
        world.advance(by: max(0, target - world.deviceClock.monotonic))
        if connection != nil {
            try send(.clock(world.deviceClock))
            try settle()
        }
    }

    /// Whether the client sent a refresh since trace event `first` (by index), under any profile.
    private func refreshSent(since first: Int) -> Bool {
        trace.events.dropFirst(first).contains { event in
            if case .received(.http(_, _, let request)) = event.kind { return WorldEndpoints.standard.logical(request) == .refresh }
            return false
        }
    }

    /// Until the client is idle and nothing it asked can be answered now: barrier, answer, repeat.
    func settle() throws(AdapterFailure) {
        var rounds = 0
        if connection != nil { armedKill?.due = true }
        let limit = Self.baseRounds + Self.roundsPerPendingCommand * pendingCommands.count
        while connection != nil {
            rounds += 1
            guard rounds <= limit else {
                throw AdapterFailure(.hung, "the client kept working for \(limit) rounds without settling")
            }
            barrierCounter += 1
            let barrier = "b\(barrierCounter)"
            try send(.barrier(id: barrier, httpAnswered: loopback?.answered))
            var effects: [AdapterMessage] = []
            var abandons: [String] = []
            while true {
                let message = try receiveTimed()
                if case .barrier(let id, let httpStarted) = message {
                    guard id == barrier else { throw wrongBarrier(id, expected: barrier) }
                    effects += try loopbackRequests(started: httpStarted)
                    break
                }
                if message.effectID != nil {
                    try loopback?.admit(message)
                    effects.append(message)
                } else if case .abandon(let id, _) = message {
                    abandons.append(id)
                } else {
                    try handleEvent(message)
                }
            }
            // After the barrier answer: in loopback mode an abandon may name a request that reached the socket
            // in this round.
            for id in abandons { try abandon(id, batch: &effects) }
            var progressed = false
            var ordered = effects.map { (key: Self.canonicalKey($0), effect: $0) }.sorted { $0.key < $1.key }.map(\.effect)
            if let schedule { ordered = schedule.plan(ordered) }
            let storage = StorageRound(arrival: effects, answerOrder: ordered, killPoint: armedKill?.point, world: &world)
            for effect in ordered {
                guard connection != nil else { return }
                if try answer(effect, batch: effects, storage: storage) { progressed = true }
            }
            if !progressed && schedule?.hasCarried != true { return }
        }
    }

    /// The client gave up on an effect: the world stops holding it and never answers it. One answered or abandoned
    /// already is ignored (the reply and the abandon may cross on the wire); an id the process never sent, or a
    /// storage change (it took effect when it arrived), is a protocol error.
    private func abandon(_ named: String, batch: inout [AdapterMessage]) throws(AdapterFailure) {
        let id = loopback?.exchangeID(tagged: named) ?? named
        guard let type = effectTypes[id] else {
            throw AdapterFailure(.protocolViolation, "the adapter abandoned '\(named)', which it never sent as an effect"
                                 + (loopback == nil ? "" : " nor as a request tagged X-Conformance-Request"), stderrTail: tail())
        }
        guard type == "http" || type == "sleep" else {
            throw AdapterFailure(.protocolViolation, "the adapter abandoned '\(id)', a '\(type)' effect: only 'http' and 'sleep' effects can be abandoned",
                                 stderrTail: tail())
        }
        guard !closedEffects.contains(id) else {
            note("abandon of \(id) ignored: it was answered or abandoned already")
            return
        }
        closedEffects.insert(id)
        batch.removeAll { $0.effectID == id }
        if clockMoving, let request = held.first(where: { $0.id == id })?.request {
            heldAbandonedOnDeadline.append((step, request))
        }
        held.removeAll { $0.id == id }
        sleeps.removeAll { $0.id == id }
        schedule?.drop(effectID: id)
        loopback?.abandon(id)
        record(.effectAbandoned(effectID: id))
    }

    /// Orders a batch of concurrent effects independently of the ids an adapter chose.
    private static func canonicalKey(_ message: AdapterMessage) -> String {
        guard var object = message.json.object else { return "" }
        object["id"] = nil
        return JSONValue.object(object).jsonText
    }

    private func handleEvent(_ message: AdapterMessage) throws(AdapterFailure) {
        switch message {
        case .result(let result):
            guard pendingCommands.removeValue(forKey: result.id) != nil else {
                throw AdapterFailure(.protocolViolation,
                                     "a result for command '\(result.id)', which was not sent or was answered already",
                                     stderrTail: tail())
            }
        case .hello:
            throw AdapterFailure(.protocolViolation, "'hello' sent twice", stderrTail: tail())
        default:
            break
        }
    }

    /// Answers one effect now if the world would; returns whether a reply was sent.
    private func answer(_ effect: AdapterMessage, batch: [AdapterMessage], storage: StorageRound) throws(AdapterFailure) -> Bool {
        switch effect {
        case .http(let id, _, let request):
            if world.isHeld(request) {
                held.append((id, request))
                note("held \(request.method) \(request.path)")
                return false
            }
            try reply(id, outcome: world.serve(request))
            return true
        case .storage(let id, let operation, let key, _, _):
            return try answerStorage(id, storage.answers[id], batch: batch, "secure-storage \(operation.rawValue) of '\(key)'",
                                     fault: "writeFailure", refusal: "the secure-storage write failed")
        case .preferences(let id, let operation, let key, _):
            return try answerStorage(id, storage.answers[id], batch: batch, "preferences \(operation.rawValue) of '\(key)'",
                                     fault: "preferencesWriteFailure", refusal: "the preferences write failed")
        case .sleep(let id, let seconds):
            if seconds <= 0 {
                try send(.reply(id: id, .done))
                return true
            }
            sleeps.append((id, world.deviceClock.monotonic + seconds))
            return false
        default:
            return false
        }
    }

    /// Sends what `StorageRound` decided for a storage effect (applied already, in arrival order), or lands the
    /// armed kill on it; returns whether a reply was sent.
    private func answerStorage(_ id: String, _ answer: StorageRound.Answer?, batch: [AdapterMessage], _ operation: String,
                               fault: String, refusal: String) throws(AdapterFailure) -> Bool {
        switch answer {
        case .reply(let outcome):
            try sendStorageReply(id, outcome)
            return true
        case .refused:
            note("\(operation) failed (storageFault \(fault))")
            try send(.reply(id: id, .error(ProtocolErrorCode.writeFailed.info(refusal))))
            return true
        case .killPoint:
            if let armed = armedKill { land(armed, on: id, batch: batch, operation) }
            return false
        case .appliedUnanswered, nil:
            return false
        }
    }

    /// The armed kill lands on a storage change (`operation`), which `StorageRound` discarded (before the point) or
    /// applied (after it).
    private func land(_ armed: ArmedKill, on id: String, batch: [AdapterMessage], _ operation: String) {
        armedKill = nil
        killPointLanded = armed.step
        // The storage changes the client sent alongside this one (say, two items written in parallel) reached the
        // runner before the kill, so they took effect; only the chosen one is discarded.
        noteSiblingChanges(of: id, in: batch)
        if armed.point == .beforeStorageWrite {
            record(.writeDiscarded(effectID: id))
            kill(reason: "killed before the storage write: \(operation) (\(id)) discarded")
        } else {
            kill(reason: "killed after the storage write: \(operation) (\(id)) applied")
        }
    }

    private func noteSiblingChanges(of id: String, in batch: [AdapterMessage]) {
        for sibling in batch {
            switch sibling {
            case .storage(let other, let operation, let key, _, _) where other != id && operation != .get:
                note("secure-storage \(operation.rawValue) of '\(key)' sent in the same batch applied")
            case .preferences(let other, let operation, let key, _) where other != id && operation != .get:
                note("preferences \(operation.rawValue) of '\(key)' sent in the same batch applied")
            default:
                break
            }
        }
    }

    private func sendStorageReply(_ id: String, _ outcome: DeviceStorage.Outcome) throws(AdapterFailure) {
        switch outcome {
        case .value(let value): try send(.reply(id: id, .value(value)))
        case .done: try send(.reply(id: id, .done))
        case .locked: try send(.reply(id: id, .error(ProtocolErrorCode.locked.info("the device is locked"))))
        }
    }

    private func reply(_ id: String, outcome: HTTPOutcome) throws(AdapterFailure) {
        let body: ReplyBody = switch outcome {
        case .response(let response): .response(response)
        case .failure(let failure): .failure(failure)
        }
        if let loopback, loopback.owns(id) {
            // Recorded as the same reply an effect gets; it travels on the socket.
            record(.sent(.reply(id: id, body)))
            loopback.answer(id, outcome)
        } else {
            try send(.reply(id: id, body))
        }
        for line in world.serverLog.dropFirst(loggedServerLines) { note(line) }
        loggedServerLines = world.serverLog.count
    }

    private var loggedServerLines = 0

    /// A kill point waiting for the client's next storage change.
    private struct ArmedKill {
        let point: KillPoint
        /// The step (0-based) that armed it.
        let step: Int
        /// A later step drove the client, or its process ended: at the end of this step it lands or disarms.
        var due = false
    }

    // MARK: Wire

    private func send(_ message: RunnerMessage) throws(AdapterFailure) {
        guard let connection else { throw AdapterFailure(.notRunning, "the app is not running") }
        record(.sent(message))
        try connection.send(message)
    }

    private func receive() throws(AdapterFailure) -> AdapterMessage {
        guard let connection else { throw AdapterFailure(.notRunning, "the app is not running") }
        let message = try connection.receive()
        record(.received(message))
        if let overflow = trace.overflow { throw overBudget(overflow) }
        return message
    }

    private func record(_ kind: TraceEvent.Kind) {
        switch kind {
        case .received(let message):
            if let id = message.effectID, let type = message.json["type"]?.string { effectTypes[id] = type }
        case .sent(.reply(let id, _)):
            closedEffects.insert(id)
        default:
            break
        }
        trace.append(kind, step: step, instance: instance, time: world.deviceClock.monotonic)
    }

    /// `receive`, noting a silence of the adapter longer than `RealTimeWait.threshold` of real time (a client that
    /// sleeps or waits on a socket in real time): measured on the machine's clock for the report, never decided on.
    private func receiveTimed() throws(AdapterFailure) -> AdapterMessage {
        let waitedAfter = trace.events.count
        let started = ContinuousClock.now
        let message = try receive()
        let waited = ContinuousClock.now - started
        let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
        if seconds >= RealTimeWait.threshold {
            trace.noteRealTimeWait(RealTimeWait(seconds: seconds, afterEvent: waitedAfter, step: step, instance: instance))
        }
        return message
    }

    func tail() -> String {
        String((capturedLog + (connection?.capturedLog ?? "")).suffix(4_000))
    }

    /// Ends the case: the client is stopped and its log collected.
    func finish() {
        if let connection {
            // Its log first: once released, another case may take the process and reset it.
            capturedLog += connection.capturedLog
            connection.release()
            self.connection = nil
        }
        stopLoopback()
    }

    // MARK: Loopback HTTP (see LoopbackBridge)

    /// In loopback mode, the requests the barrier answer accounts for, recorded as received `http` effects.
    private func loopbackRequests(started: Int?) throws(AdapterFailure) -> [AdapterMessage] {
        guard let loopback else { return [] }
        let requests: [AdapterMessage]
        do {
            requests = try loopback.collect(started: started)
        } catch {
            throw AdapterFailure(error.code, error.message, stderrTail: tail())
        }
        for line in loopback.takeLog() { note(line) }
        for request in requests { record(.received(request)) }
        return requests
    }

    /// The case's port again for a relaunched process. Another socket of the machine may hold it for a moment (the
    /// port was free while no process lived): a few tries, then a new port, told in the trace, rather than an error
    /// for the client. A port pinned with `--loopback-port` is never given up.
    static func rebind(_ port: UInt16, timeout: Duration, note: (String) -> Void) throws(AdapterFailure) -> LoopbackBridge {
        for _ in 0..<20 {
            if let bridge = try? LoopbackBridge(timeout: timeout, port: port) { return bridge }
            usleep(50_000)
        }
        let bridge = try LoopbackBridge(timeout: timeout, port: 0)
        note("the case's loopback port \(port) was taken while no process served it; the relaunched process is served at port \(bridge.port)")
        return bridge
    }

    private func stopLoopback() {
        guard let loopback else { return }
        for line in loopback.takeLog() { note(line) }
        loopback.stop()
        self.loopback = nil
        // Held until the next process's server binds the port again.
        portReservation = LoopbackPortReservation(port: loopback.port)
    }
}
