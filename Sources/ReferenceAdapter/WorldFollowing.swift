public import ConformanceProtocol
public import SessionKit

extension SessionConfiguration {
    /// This configuration speaking the world profile the runner's `welcome` described: its paths, encodings,
    /// field names and account-id source. Unchanged without a description.
    public func following(_ world: WorldDescription?) -> SessionConfiguration {
        guard let world else { return self }
        var configuration = self
        configuration.paths = APIPaths(login: world.signIn.path, refresh: world.refresh.path, revoke: world.revocation.path,
                                       profile: world.profilePath, resourcePrefix: world.resourcePrefix)
        let encoding = { (endpoint: WorldDescription.Endpoint) -> APIDialect.Encoding in
            endpoint.encoding == "form" ? .form : .json
        }
        configuration.dialect = APIDialect(
            signInEncoding: encoding(world.signIn), signInGrantType: world.signIn.grantType,
            usernameField: world.signIn.fields["username"] ?? "username",
            passwordField: world.signIn.fields["password"] ?? "password",
            refreshEncoding: encoding(world.refresh), refreshGrantType: world.refresh.grantType ?? "refresh_token",
            refreshTokenField: world.refresh.fields["refreshToken"] ?? "refresh_token",
            revocationEncoding: encoding(world.revocation), revocationTokenField: world.revocation.fields["token"] ?? "token",
            accountID: world.accountIDFrom == "profile" ? .profile(field: world.accountIDField)
                                                        : .tokenResponse(field: world.accountIDField))
        return configuration
    }
}
