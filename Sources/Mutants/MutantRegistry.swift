import AdapterKit
public import ConformanceProtocol
import KnownBadClients
import ReferenceAdapter
import SessionKit

/// Every known-bad client the suite must reject, by name. docs/known-bad.md describes each one, the words of
/// the design documents it violates, and what kills it.
public enum MutantRegistry {
    public static let all: [Mutant] = defects + ports + explored + triggered + independent + matrix

    public static func named(_ name: String) -> Mutant? { all.first { $0.name == name } }

    /// The unmodified reference, the control of every kill matrix: it must pass everything.
    public static func reference() -> any InProcessClient { ReferenceClientAdapter() }

    /// SessionKit with one `SessionKitDefect`, wired to the reference adapter's identity and configuration.
    static func sessionKit(_ defect: SessionKitDefect, _ summary: String, violates: String, expected: [String],
                           alsoFails: [(id: String, why: String)] = [], shrunkCases: [String] = [],
                           laterCases: [String] = []) -> Mutant {
        Mutant(name: defect.rawValue, kind: .defect, defect: summary, violates: violates, expected: expected,
               alsoFails: alsoFails, shrunkCases: shrunkCases, laterCases: laterCases) {
            let configuration = {
                var configuration = SessionKitClient.configuration
                configuration.defects = [defect]
                return configuration
            }()
            let reference = SessionKitClient.identity
            let identity = HostedClientIdentity(
                implementation: ImplementationInfo(
                    name: "\(reference.implementation.name) (defect: \(defect.rawValue))", version: reference.implementation.version,
                    language: reference.implementation.language, platform: reference.implementation.platform),
                // DEFECT offline-policy-undeclared: the hello declares no offline policy; the client keeps its own.
                capabilities: defect == .offlinePolicyUndeclared ? reference.capabilities.filter { $0 != "offline-browsing" } : reference.capabilities,
                offlineResources: defect == .offlinePolicyUndeclared ? [] : reference.offlineResources)
            return HostedClientAdapter<SessionKitClient>(identity: identity) { SessionKitClient(effects: $0, configuration: configuration) }
        }
    }
}
