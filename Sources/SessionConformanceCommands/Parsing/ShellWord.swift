import Foundation

/// Text made one word for `/bin/sh`, for the commands the suite prints for a user to run again.
enum ShellWord {
    /// `text` in single quotes, each `'` inside written as `'\''`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `text` as is when the shell reads it as one word unchanged (letters, digits, `._/-`), else `quoted`.
    static func word(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._/-".unicodeScalars.contains($0))
        }
        return plain ? text : quoted(text)
    }
}
