import JSONCore
import ConformanceProtocol

/// The resource server: each account's private resources, each response tagged with a content id so the
/// runner knows whose data a screen shows.
public struct APIServer: Sendable {
    /// Content id to the account whose data it is.
    public private(set) var contentOwners: [String: String] = [:]
    private var served = 0
    /// Resources with a fixed body, by account id and name; an account with any is served only those.
    private var fixed: [String: [String: JSONValue]] = [:]

    public init() {}

    public mutating func setResource(_ name: String, body: JSONValue, for account: String) {
        fixed[account, default: [:]][name] = body
    }

    mutating func resource(_ name: String, for account: WorldAccount) -> HTTPResponseMessage {
        if let resources = fixed[account.id] {
            guard let body = resources[name] else { return HTTPResponseMessage(status: 404, body: ["error": "not_found"]) }
            return HTTPResponseMessage(status: 200, headers: ["content-type": "application/json"], body: body)
        }
        served += 1
        let contentID = "content-\(served)"
        contentOwners[contentID] = account.name
        return HTTPResponseMessage(status: 200, headers: ["content-type": "application/json"], body: [
            "resource": .string(name), "account_id": .string(account.id), "contentId": .string(contentID),
            "items": .array((1...3).map { .string("\(account.name)-\(name)-\($0)") }),
        ])
    }

    /// `accountField`: the field that names the account (`account_id` unless the profile says otherwise).
    func profile(for account: WorldAccount, accountField: String = "account_id") -> HTTPResponseMessage {
        var body: [String: JSONValue] = ["email": .string(account.email), "display_name": .string(account.name)]
        body[accountField] = .string(account.id)
        return HTTPResponseMessage(status: 200, headers: ["content-type": "application/json"], body: .object(body))
    }
}
