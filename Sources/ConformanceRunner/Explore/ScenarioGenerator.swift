import SimulatedWorld
import SpecModel

/// Writes a random program of user, device and world actions in the case language, from one seeded stream.
/// Programs are mostly well-formed (launch first, sign in before requests, release what was held, relaunch
/// after a kill) but sometimes try odd orders; they carry no `expect` step: only the oracles judge them.
struct ScenarioGenerator {
    private var random: SeededRandom
    private var steps: [CaseStep] = []
    private var running = false
    private var signedIn = false
    private var heldPaths: [String] = []
    /// Seconds the clock moved since the oldest hold in force began (`HeldClockRule`).
    private var heldSeconds = 0.0
    /// The account of the last sign-in or switch the program asked for (what an aim revokes or switches away from).
    private var account: String?

    static let accounts = StepKind.accounts
    static let resources = ["inbox", "feed", "news"]
    static let faultPaths = ["/auth/refresh", "/resources/*", "/auth/login", "/auth/revoke", "/auth/*", "/me"]
    /// The fault kinds a random fault draws from, in a fixed order: a kind added to the spec language later
    /// (`rateLimited`) is not drawn here, so every seed keeps the runs it generated (docs/exploration.md's
    /// first-find tables depend on them).
    static let faultKinds: [FaultKind] = [.invalidGrant, .revoked, .expiredToken, .serverError, .timeout, .offline, .lost]
    static let holdPaths = ["/auth/refresh", "/resources/*", "/auth/login"]

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// The program of one run; with `focus`, one that also builds that situation or path on purpose (once at a
    /// random point, sometimes again), among the usual random actions.
    static func program(seed: UInt64, focus: ExploreAim? = nil) -> [CaseStep] {
        var generator = ScenarioGenerator(seed: seed)
        return generator.generate(focus: focus)
    }

    private mutating func generate(focus: ExploreAim?) -> [CaseStep] {
        if chance(30) { configure() }
        if chance(80) {
            let seed = random.next() % 4_294_967_296
            var schedule = [("seed", String(seed)), ("delay", pick(["0", "10", "25", "50"]))]
            // Half the schedules are priority-based (PCT), chosen from the seed drawn, so no other step changes.
            if seed & 1 == 1 { schedule += [("strategy", "pct"), ("changes", String(1 + (seed >> 1) % 3))] }
            add("schedule", schedule)
        }
        add("launch")
        running = true
        if chance(90) { signIn("signIn") }
        let actions = 4 + Int(random.next() % 16)
        let aimAt = Int(random.next() % UInt64(actions))
        for index in 0..<actions {
            switch focus {
            case let focus? where index == aimAt || chance(10):
                switch focus {
                case .situation(let situation): aim(at: situation)
                case .path(let path): walk(path)
                }
            default: action()
            }
        }
        for path in heldPaths { add("release", [("path", path)]) }
        heldPaths = []
        if chance(50) { add("online") }
        if running, chance(50) { request() }
        return steps
    }

    private mutating func action() {
        switch weighted([22, 10, 12, 6, 10, 5, 4, 3, 3, 2, 4, 4, 2, 1, 2, 3, 3, 6]) {
        case 0: request()
        case 1: advance(pick(["1", "5", "30", "61", "120", "600", "3600", "0.5"]))
        case 2:
            add("fault", [("path", pick(Self.faultPaths)), ("kind", pick(Self.faultKinds.map(\.rawValue))),
                          ("times", pick(["1", "1", "2", "3"]))])
            if chance(60) { request() }
        case 3: hold()
        case 4: system(pick(StepKind.systemEvents))
        case 5: signOutOrSwitch(signOut: true)
        case 6: signOutOrSwitch(signOut: false)
        case 7: signIn("signIn")
        case 8: add("skewClock", [("seconds", pick(["-3600", "-300", "-30", "0", "30", "300", "3600"]))])
        case 9: add("revoke", [("account", pick(Self.accounts))])
        case 10: killNow()
        case 11: killAtWrite()
        case 12: reboot()
        case 13: configure()
        case 14: if running { add("barrier") }
        case 15: releaseOne()
        case 16:
            // The secure store refuses the next writes (a full disk, a keystore error), then works again; one time in
            // three it is the preferences (where the cache lives), up to three changes: an end's note and a cache clear.
            let kind: StorageFaultKind = pick([.writeFailure, .writeFailure, .preferencesWriteFailure])
            let times = pick(kind == .writeFailure ? ["1", "1", "2"] : ["1", "2", "3"])
            add("storageFault", [("kind", kind.rawValue), ("times", times)])
            if chance(50) { pick([true, false]) ? request() : signOutOrSwitch(signOut: true) }
        default: race()
        }
    }

    /// The overlaps hand-written cases rarely reach, built on purpose: replies held across a session's end, a
    /// refresh in flight when another trigger fires, several requests finding the token expired at once.
    private mutating func race() {
        ensureRunning()
        switch weighted([3, 3, 2, 2, 2, 2, 2]) {
        case 0:
            // Responses of the ended session arrive after sign-out or a switch.
            holdPath("/resources/*")
            request()
            signedIn ? signOutOrSwitch(signOut: chance(50)) : signIn("signIn")
            releasePath("/resources/*")
        case 1:
            // A refresh in flight while the session ends, or while more requests find the token refused.
            holdPath("/auth/refresh")
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", pick(["1", "3"]))])
            request()
            switch weighted([2, 2, 1, 1]) {
            case 0: signOutOrSwitch(signOut: chance(50))
            case 1: request()
            case 2: add("advance", [("seconds", pick(["30", "600"]))])
            default: add("backgroundRefresh")
            }
            releasePath("/auth/refresh")
        case 2:
            // The clock expires the access token under several requests at once.
            add("configure", [("accessTokenLifetime", pick(["10", "30"]))])
            if !signedIn { signIn("signIn") }
            advance(pick(["31", "61", "600"]))
            add("request", [("resource", pick(Self.resources)), ("count", pick(["3", "5", "8"]))])
        case 3:
            // Cached content of one account, asked for by the next while offline; sometimes the clear of the first
            // account's cache is refused (what a cache partitioned by account keeps from the next one).
            let resource = pick(["news", "news", "inbox"])
            add("request", [("resource", resource), ("count", "1")])
            if chance(40) { add("storageFault", [("kind", StorageFaultKind.preferencesWriteFailure.rawValue), ("times", "2")]) }
            signIn("switchAccount")
            add("offline")
            add("request", [("resource", resource), ("count", "1")])
            add("online")
        case 4:
            // A restart while offline: what may show before the session is validated.
            let resource = pick(["news", "inbox", "feed"])
            add("request", [("resource", resource), ("count", "1")])
            add("kill", [("at", "now")])
            add("offline")
            add("launch")
            add("request", [("resource", resource), ("count", "1")])
            add("online")
        case 5:
            // A background refresh overlapping a foreground 401.
            holdPath("/auth/refresh")
            add("backgroundRefresh")
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
            request()
            releasePath("/auth/refresh")
        default:
            // A refresh the world never answers: the clock moves past any request deadline while it is held, and
            // it stays held until the program's end (a kill drops it sooner).
            if !signedIn { signIn("signIn") }
            holdPath("/auth/refresh")
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
            request()
            add("advance", [("seconds", pick(["1000", "3600"]))])
        }
    }

    /// Steps that put the client in `situation` (`SituationDetectors` judges whether they did).
    private mutating func aim(at situation: Situation) {
        ensureRunning()
        switch situation {
        case .signedIn, .tokensWritten:
            signIn("signIn")
        case .invalidSignInInput:
            let (email, password) = pick([("not-an-email", "long enough pass"), ("alice@example.com", "short"), ("", "")])
            add(pick(["signIn", "switchAccount"]), [("email", email), ("password", password)])
        case .signedInAgain, .accountSwitched:
            if !signedIn { signIn("signIn") }
            let other = pick(Self.accounts.filter { $0 != account })
            add("switchAccount", [("account", other)])
            account = other
        case .sessionEnded, .userSignOut:
            if !signedIn { signIn("signIn") }
            signOutOrSwitch(signOut: true)
        case .refreshed, .refreshedTokenUsed, .requestRefused401, .refreshedTwice:
            if !signedIn { signIn("signIn") }
            for _ in 0..<(situation == .refreshedTwice ? 2 : 1) {
                add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
                request()
            }
        case .concurrentDemandDuringRefresh:
            if !signedIn { signIn("signIn") }
            holdPath("/auth/refresh")
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", pick(["2", "3"]))])
            add("request", [("resource", pick(Self.resources)), ("count", pick(["3", "5"]))])
            releasePath("/auth/refresh")
        case .stale401:
            // A request held while its token expires and a refresh replaces it: released, it is refused for the old
            // token. The token lives 4 s, so it expires under the held request in a move shorter than any client's
            // request deadline (`HeldClockRule`).
            add("configure", [("accessTokenLifetime", "4")])
            signIn("signIn")
            holdPath("/resources/*")
            request()
            advance(pick(["4.5", "4.9"]))
            add("backgroundRefresh")
            request()
            releasePath("/resources/*")
        case .refreshRejected, .refreshRejectedWithRequestsWaiting, .refreshFailedRetryable:
            if !signedIn { signIn("signIn") }
            let kind = situation == .refreshFailedRetryable ? pick(["serverError", "timeout", "lost", "offline"]) : pick(["invalidGrant", "revoked"])
            add("fault", [("path", "/auth/refresh"), ("kind", kind), ("times", "1")])
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "3")])
            add("request", [("resource", pick(Self.resources)), ("count", situation == .refreshRejectedWithRequestsWaiting ? "3" : "1")])
        case .refreshUnansweredLong:
            if !signedIn { signIn("signIn") }
            holdPath("/auth/refresh")
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
            request()
            add("advance", [("seconds", pick(["1000", "3600"]))])
        case .killDuringRefresh:
            if !signedIn { signIn("signIn") }
            holdPath("/auth/refresh")
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
            request()
            heldPaths.removeAll { $0 == "/auth/refresh" }
            add("kill", [("at", "now")])
            // The kill dropped the held refresh; the next process's refreshes are answered.
            add("release", [("path", "/auth/refresh")])
            running = false
            ensureRunning()
        case .killAtRefreshStore:
            if !signedIn { signIn("signIn") }
            add("kill", [("at", pick(["beforeStorageWrite", "afterStorageWrite"]))])
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
            request()
            add("launch")
        case .killDuringSessionEnd:
            if !signedIn { signIn("signIn") }
            add("kill", [("at", pick(["beforeStorageWrite", "afterStorageWrite"]))])
            signOutOrSwitch(signOut: chance(50))
            add("launch")
        case .launchWithStoredSession, .launchAfterPrivateContent:
            if !signedIn { signIn("signIn") }
            add("request", [("resource", pick(["inbox", "news"])), ("count", "1")])
            add("kill", [("at", "now")])
            add("launch")
        case .launchWithRefusedSession:
            if !signedIn { signIn("signIn") }
            add("kill", [("at", "now")])
            add("revoke", [("account", account ?? pick(Self.accounts))])
            add("launch")
        case .offlineLaunch:
            if !signedIn { signIn("signIn") }
            add("kill", [("at", "now")])
            add("offline")
            add("launch")
            request()
            add("online")
        case .responseAfterSessionEnd:
            if !signedIn { signIn("signIn") }
            holdPath("/resources/*")
            request()
            signOutOrSwitch(signOut: chance(50))
            releasePath("/resources/*")
        case .refreshResultAfterSessionEnd:
            if !signedIn { signIn("signIn") }
            holdPath("/auth/refresh")
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
            request()
            signOutOrSwitch(signOut: chance(50))
            releasePath("/auth/refresh")
        case .revocationFailed:
            if !signedIn { signIn("signIn") }
            add("fault", [("path", "/auth/revoke"), ("kind", pick(["serverError", "timeout", "offline"])), ("times", "2")])
            signOutOrSwitch(signOut: true)
        case .storageLocked:
            reboot()
            ensureRunning()
        case .backgroundRefreshTask:
            if !signedIn { signIn("signIn") }
            add("backgroundRefresh")
        case .clockSkewed:
            if !signedIn { signIn("signIn") }
            add("skewClock", [("seconds", pick(["-3600", "3600", "31536000", "-31536000"]))])
            request()
        }
        running = true
    }

    /// Steps that take the client along `path`; each ends with the app running and nothing of its own held.
    private mutating func walk(_ path: RequirementPath) {
        ensureRunning()
        // Online and signed in with a valid form, whatever the random actions before left.
        add("online")
        if !signedIn, path != .clockAheadThenBack { signInValid("signIn") }
        switch path {
        case .lateResponseToNextSession, .lateRefreshToNextSession:
            // A's revocation waits, so the server still answers A's held request with A's data (or a valid pair).
            holdPath("/auth/revoke")
            let held = path == .lateResponseToNextSession ? "/resources/*" : "/auth/refresh"
            holdPath(held)
            if path == .lateRefreshToNextSession {
                add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
            }
            add("request", [("resource", pick(["inbox", "inbox", "feed"])), ("count", pick(["1", "2"]))])
            signOutOrSwitch(signOut: chance(25))
            releasePath(held)
            if signedIn { add("request", [("resource", "inbox"), ("count", "1")]) }
            releasePath("/auth/revoke")
            if path == .lateRefreshToNextSession, chance(60) {
                // What a stored stale pair would bring back: the next launch restores it.
                add("kill", [("at", "now")])
                add("launch")
                add("request", [("resource", "inbox"), ("count", "1")])
            }
        case .retryRefusedAgain:
            add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", pick(["3", "4", "6"]))])
            add("request", [("resource", pick(Self.resources)), ("count", "1")])
            // A client that pauses before trying again is given the time to.
            for _ in 0..<(1 + Int(random.next() % 3)) { advance(pick(["0.5", "1", "2"])) }
        case .outageOverTime:
            let offline = chance(50)
            if offline {
                add("offline")
            } else {
                add("fault", [("path", "/auth/refresh"), ("kind", pick(["serverError", "timeout"])), ("times", pick(["2", "3", "4"]))])
            }
            // Past the access token's expiry (300 s unless configured), so the request needs a refresh.
            advance(pick(["301", "600"]))
            add("request", [("resource", pick(Self.resources)), ("count", pick(["1", "2"]))])
            for _ in 0..<(1 + Int(random.next() % 3)) { advance(pick(["6", "13", "37"])) }
            if offline { add("online") }
            // Longer than any backoff (`DeferredRefreshTriedAgain.patience`): the refresh must have been tried again.
            advance(pick(["901", "1800"]))
            add("request", [("resource", pick(Self.resources)), ("count", "1")])
        case .clockAheadThenBack:
            // The token is received while the clock is ahead: a sign-in, or a switch over a live session.
            add("skewClock", [("seconds", "31536000")])
            signInValid(signedIn ? "switchAccount" : "signIn")
            add("skewClock", [("seconds", "0")])
            advance("600")
            add("request", [("resource", pick(Self.resources)), ("count", "1")])
            advance("60")
            add("request", [("resource", pick(Self.resources)), ("count", "2")])
        case .killInExpiryRefreshStore:
            if chance(70) { add("configure", [("reuseInterval", "0")]) }
            // Past the expiry of any lifetime a configure step sets (at most an hour).
            advance(pick(["3601", "7200"]))
            // After the refresh's first write: between a write and the next one is where a pair gets lost.
            add("kill", [("at", "afterStorageWrite")])
            add("request", [("resource", "inbox"), ("count", "1")])
            add("launch")
            add("request", [("resource", pick(Self.resources)), ("count", "1")])
        case .restoreRefreshNotStored:
            add("storageFault", [("kind", StorageFaultKind.writeFailure.rawValue), ("times", "1")])
            advance(pick(["301", "450", "600"]))
            add("kill", [("at", "now")])
            add("launch")
            if chance(50) { add("request", [("resource", pick(Self.resources)), ("count", "1")]) }
        case .restoreTokenRefusedTwice:
            add("fault", [("path", "/me"), ("kind", "expiredToken"), ("times", pick(["2", "3"]))])
            add("kill", [("at", "now")])
            add("launch")
            if chance(50) { add("request", [("resource", pick(Self.resources)), ("count", "1")]) }
        }
        running = true
    }

    /// Moves the clock, keeping to `HeldClockRule`: a move that would take the clock 5 s or more past what is held
    /// releases it first. The scenarios about deadlines (a refresh never answered) add their long moves directly,
    /// and their runs are marked `timeouts` (`ExploreRunID.acceptanceCase`).
    private mutating func advance(_ seconds: String) {
        if !heldPaths.isEmpty {
            heldSeconds += Double(seconds) ?? 0
            if heldSeconds >= HeldClockRule.limit {
                for path in heldPaths { add("release", [("path", path)]) }
                heldPaths = []
            }
        }
        add("advance", [("seconds", seconds)])
    }

    private mutating func holdPath(_ path: String) {
        guard !heldPaths.contains(path) else { return }
        if heldPaths.isEmpty { heldSeconds = 0 }
        add("hold", [("path", path)])
        heldPaths.append(path)
    }

    private mutating func releasePath(_ path: String) {
        guard let index = heldPaths.firstIndex(of: path) else { return }
        heldPaths.remove(at: index)
        add("release", [("path", path)])
    }

    // MARK: Actions that keep the program runnable

    private mutating func request() {
        ensureRunning()
        add("request", [("resource", pick(Self.resources)), ("count", pick(["1", "1", "2", "3", "5", "8"]))])
    }

    private mutating func signIn(_ kind: String) {
        ensureRunning()
        if chance(8) {
            // Form input as typed: malformed (no @, nothing after it), too short, or a real account's email with a wrong password.
            let (email, password) = pick([("not-an-email", "long enough pass"), ("alice@example.com", "short"),
                                          ("alice@example.com", "wrong password 1"), ("alice@", "long enough pass")])
            add(kind, [("email", email), ("password", password)])
            return
        }
        signIn(kind, as: pick(Self.accounts))
    }

    /// A sign-in or switch with a real account's credentials, never the malformed input `signIn(_:)` sometimes types;
    /// a switch goes to another account.
    private mutating func signInValid(_ kind: String) {
        ensureRunning()
        signIn(kind, as: pick(Self.accounts.filter { kind == "signIn" || $0 != account }))
    }

    private mutating func signIn(_ kind: String, as chosen: String) {
        add(kind, [("account", chosen)])
        account = chosen
        signedIn = true
    }

    private mutating func signOutOrSwitch(signOut: Bool) {
        ensureRunning()
        if signOut {
            add("signOut")
            signedIn = false
        } else {
            signIn("switchAccount")
        }
    }

    private mutating func system(_ event: String) {
        // An OS event with no app running only changes the device; with one it is also a command.
        add(event)
    }

    private mutating func hold() {
        let path = pick(Self.holdPaths)
        guard !heldPaths.contains(path) else { return releaseOne() }
        if heldPaths.isEmpty { heldSeconds = 0 }
        add("hold", [("path", path)])
        heldPaths.append(path)
        if chance(70) { request() }
    }

    private mutating func releaseOne() {
        guard !heldPaths.isEmpty else { return request() }
        let index = Int(random.next() % UInt64(heldPaths.count))
        add("release", [("path", heldPaths.remove(at: index))])
    }

    private mutating func killNow() {
        add("kill", [("at", "now")])
        running = false
        if chance(85) { ensureRunning() }
    }

    /// A kill point lands on the next storage change of the step that follows, which then relaunches.
    private mutating func killAtWrite() {
        ensureRunning()
        add("kill", [("at", pick(["beforeStorageWrite", "afterStorageWrite"]))])
        // The next step must change storage, or the point never lands and the run is inconclusive.
        if !signedIn {
            signIn("signIn")
        } else {
            switch weighted([3, 3, 3]) {
            case 0: signOutOrSwitch(signOut: true)
            case 1: signIn("switchAccount")
            default:
                add("fault", [("path", "/resources/*"), ("kind", "expiredToken"), ("times", "1")])
                request()
            }
        }
        // Whether the kill landed or not, the app is started again (a launch of a running app is harmless).
        add("launch")
        running = true
    }

    private mutating func reboot() {
        add("reboot")
        running = false
        if chance(70) { add("unlock") }
        if chance(85) { ensureRunning() }
    }

    private mutating func configure() {
        var arguments: [(String, String)] = []
        if chance(70) { arguments.append(("accessTokenLifetime", pick(["10", "30", "60", "300", "3600"]))) }
        if chance(50) { arguments.append(("reuseInterval", pick(["0", "2", "10", "60"]))) }
        add("configure", arguments)
    }

    private mutating func ensureRunning() {
        guard !running else { return }
        add("launch")
        running = true
    }

    // MARK: The stream

    private mutating func add(_ kind: String, _ arguments: [(String, String)] = []) {
        // Every argument is one the decoder accepts; a refusal is a bug of this generator.
        guard let step = CaseStep.building(kind, arguments.map { (key: $0.0, value: $0.1) }) else {
            preconditionFailure("the generator wrote a step the case language refuses: \(kind) \(arguments)")
        }
        steps.append(step)
    }

    private mutating func chance(_ percent: Int) -> Bool { Int(random.next() % 100) < percent }

    private mutating func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }

    private mutating func weighted(_ weights: [Int]) -> Int {
        var roll = Int(random.next() % UInt64(weights.reduce(0, +)))
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }
}
