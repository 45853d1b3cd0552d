/// The people of the simulated world. Case steps name them by `name`.
public struct WorldAccount: Sendable, Hashable {
    public init(name: String, email: String, password: String, id: String) {
        self.name = name
        self.email = email
        self.password = password
        self.id = id
    }

    public let name: String
    public let email: String
    public let password: String
    public let id: String

    public static let all: [WorldAccount] = [
        WorldAccount(name: "alice", email: "alice@example.com", password: "correct horse battery", id: "acct-alice"),
        WorldAccount(name: "bob", email: "bob@example.com", password: "staple tuna pony", id: "acct-bob"),
        WorldAccount(name: "carol", email: "carol@example.com", password: "river lamp violet", id: "acct-carol"),
    ]

    public static func named(_ name: String) -> WorldAccount? { all.first { $0.name == name } }
    public static func withEmail(_ email: String) -> WorldAccount? { all.first { $0.email == email } }
    public static func withID(_ id: String) -> WorldAccount? { all.first { $0.id == id } }
}
