/// Text made one word for `/bin/sh`, for the commands the suite prints for a user to run again.
enum ShellWord {
    /// `text` in single quotes, each `'` inside written as `'\''`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
