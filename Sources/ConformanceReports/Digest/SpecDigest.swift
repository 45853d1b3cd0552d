import Foundation

/// Which spec a report certifies against: the SHA-256 of every file of the spec folder.
///
/// The files are every regular file below the spec root except the editor schemas in `schema/` and hidden
/// files, by path relative to the root, sorted bytewise. The digest is the SHA-256 of the lines that
/// `sha256sum` prints for them (`<hex>  <path>\n`), so it can be checked without this tool:
///
///     (cd Specs && find . -type f ! -path './schema/*' ! -name '.*' | sed 's|^\./||' | LC_ALL=C sort \
///         | xargs sha256sum) | sha256sum
public struct SpecDigest: Sendable, Equatable {
    public struct File: Sendable, Equatable, Codable {
        public var path: String
        public var sha256: String

        public init(path: String, sha256: String) {
            self.path = path
            self.sha256 = sha256
        }
    }

    public let files: [File]
    /// `sha256:` and 64 hex digits.
    public let digest: String

    public init(files: [File]) {
        self.files = files.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
        let listing = self.files.map { "\($0.sha256)  \($0.path)\n" }.joined()
        digest = "sha256:" + SHA256.hex(Array(listing.utf8))
    }

    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads and hashes the spec folder.
    public static func of(specRoot: String) throws(ReadError) -> SpecDigest {
        let root = URL(fileURLWithPath: specRoot).standardizedFileURL
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: []) else {
            throw ReadError(description: "cannot read the spec folder \(specRoot)")
        }
        var files: [File] = []
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in enumerator {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(prefix) else { continue }
            let relative = String(path.dropFirst(prefix.count))
            let components = relative.split(separator: "/")
            if components.first == "schema" || components.contains(where: { $0.hasPrefix(".") }) { continue }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ReadError(description: "cannot read \(path)")
            }
            files.append(File(path: relative, sha256: SHA256.hex(data)))
        }
        guard !files.isEmpty else { throw ReadError(description: "the spec folder \(specRoot) holds no file") }
        return SpecDigest(files: files)
    }
}
