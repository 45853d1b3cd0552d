@testable import ConformanceRunner
import ConformanceProtocol
import Testing

/// 003: "Check authentication state on app launch." A launch decides between the signed-in and signed-out screens
/// only after it touched secure storage.
@Suite("oracle: launch-checks-stored-session")
struct LaunchChecksStoredSessionTests {
    enum Touch { case nothing, read, delete, preferencesOnly }

    /// A launch that touches storage as `touch` says, then ends restoring signed out.
    static func launch(_ touch: Touch) throws -> [Finding] {
        var crafted = CraftedTrace()
        crafted.transition(nil, from: nil, to: "restoring")
        switch touch {
        case .nothing:
            break
        case .read:
            crafted.add(.received(.storage(id: "s1", operation: .get, key: "session", value: nil, accessibility: nil)))
            crafted.add(.sent(.reply(id: "s1", .value(nil))))
        case .delete:
            crafted.add(.received(.storage(id: "s1", operation: .delete, key: "session", value: nil, accessibility: nil)))
            crafted.add(.sent(.reply(id: "s1", .done)))
        case .preferencesOnly:
            crafted.add(.received(.preferences(id: "p1", operation: .get, key: "auth.has-session", value: nil)))
            crafted.add(.sent(.reply(id: "p1", .value(nil))))
        }
        crafted.transition("restore-failed", from: "restoring", to: "signedOut")
        return try crafted.findings(LaunchChecksStoredSession())
    }

    @Test("a launch that ends restoring without touching secure storage fails RESTORE-CHECK-ON-LAUNCH")
    func decidedWithoutStorage() throws {
        let findings = try Self.launch(.nothing)
        #expect(findings.map(\.requirements) == [["RESTORE-CHECK-ON-LAUNCH"]])
        #expect(findings.first?.message == "the launch ended restoring ('restore-failed', to signedOut) without reading secure storage: it must check the stored session before it decides")
    }

    @Test("a flag in preferences is not the stored session")
    func decidedByAPreference() throws {
        #expect(try Self.launch(.preferencesOnly).map(\.requirements) == [["RESTORE-CHECK-ON-LAUNCH"]])
    }

    @Test("a launch that read secure storage, or wiped it as a first run does, has checked the stored session",
          arguments: [Touch.read, Touch.delete])
    func checked(_ touch: Touch) throws {
        #expect(try Self.launch(touch).isEmpty)
    }
}

/// 000: "If offline browsing is supported, define in advance which cached data may appear before session validation."
@Suite("oracle: content-belongs-to-current-account, offline browsing nobody declared")
struct UndeclaredOfflineBrowsingTests {
    /// Alice's news fetched in one process, shown while the next restores: from the cache (`cached`), or fetched by
    /// the restoring process itself.
    static func newsShownWhileRestoring(cached: Bool, capabilities: [String], offlineResources: [String]) throws -> [Finding] {
        var crafted = CraftedTrace()
        let alice = crafted.signInAlice()
        let news = HTTPRequestMessage(method: "GET", path: "/resources/news", headers: ["Authorization": "Bearer \(alice.access)"])
        var outcome: HTTPOutcome?
        if cached { outcome = crafted.exchange(news) }
        crafted.kill()
        crafted.relaunch()
        crafted.transition(nil, from: nil, to: "restoring")
        if !cached { outcome = crafted.exchange(news) }
        guard case .response(let response)? = outcome, let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no news")
            return []
        }
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "news", account: "acct-alice", generation: 1, contentID: contentID))))
        return try crafted.findings(ContentBelongsToCurrentAccount(), capabilities: capabilities, offlineResources: offlineResources)
    }

    @Test("cached content shown while restoring with no offline policy declared fails the declaration too")
    func undeclaredCache() throws {
        let findings = try Self.newsShownWhileRestoring(cached: true, capabilities: [], offlineResources: [])
        #expect(findings.map(\.requirements) == [["RESTORE-NO-PRIVATE-BEFORE-VALIDATION", "OFFLINE-POLICY-DECLARED"]])
        #expect(findings.first?.message == "alice's private content was shown while restoring, before the session was validated (from an earlier process: offline browsing with no offline policy declared)")
    }

    @Test("the same cache under a declared policy that names it is allowed")
    func declaredCache() throws {
        #expect(try Self.newsShownWhileRestoring(cached: true, capabilities: ["offline-browsing"], offlineResources: ["news"]).isEmpty)
    }

    @Test("content the restoring process fetched itself is not offline browsing: only the restore rule is broken")
    func fetchedWhileRestoring() throws {
        let findings = try Self.newsShownWhileRestoring(cached: false, capabilities: [], offlineResources: [])
        #expect(findings.map(\.requirements) == [["RESTORE-NO-PRIVATE-BEFORE-VALIDATION"]])
    }
}
