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
