/// Checks sign-in input before any request is sent.
struct SignInInputValidator: Sendable {
    var minimumPasswordLength: Int

    /// Throws `invalidInput` naming the field; the error never repeats the input.
    func validate(email: String, password: String) throws(SessionError) {
        guard Self.isPlausibleEmail(email) else {
            throw SessionError(.invalidInput, context: "email is not a valid address")
        }
        guard password.count >= minimumPasswordLength else {
            throw SessionError(.invalidInput, context: "password must be at least \(minimumPasswordLength) characters")
        }
    }

    /// One `@`, a non-empty local part, a dotted domain with non-empty labels, no whitespace.
    static func isPlausibleEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, email.count <= 254 else { return false }
        guard !email.contains(where: { $0.isWhitespace || $0.isNewline }) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { return false }
        return labels.allSatisfy { label in label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }
    }
}
