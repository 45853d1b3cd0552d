import Foundation
import SpecYAML

/// Which spec a report certifies against: the SHA-256 of every file of the spec folder that a spec load reads.
///
/// The files are the ones `SpecLoader` reads, and nothing else: every `.yaml` and `.yml` file below the spec
/// root, and the design documents, every file below `sources/`. Anything else there (the editor schemas in
/// `schema/`, notes, a stray large file, a FIFO) is never opened. Each is read as the loader reads it
/// (`BoundedFile`: a regular file of at most 16 MiB, refused at once otherwise). They are listed by path relative
/// to the root, sorted bytewise; the digest is the SHA-256 of the lines that `sha256sum` prints for them
/// (`<hex>  <path>\n`), so it can be checked without this tool:
///
///     (cd Specs && find . -type f \( -name '*.yaml' -o -name '*.yml' -o -path './sources/*' \) \
///         | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum) | sha256sum
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

    /// Reads and hashes the spec folder's spec files and design documents.
    public static func of(specRoot: String) throws(ReadError) -> SpecDigest {
        let root = URL(fileURLWithPath: specRoot).standardizedFileURL
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: []) else {
            throw ReadError(description: "cannot read the spec folder \(specRoot)")
        }
        var files: [File] = []
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in enumerator {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(prefix) else { continue }
            let relative = String(path.dropFirst(prefix.count))
            guard ["yaml", "yml"].contains(url.pathExtension) || relative.hasPrefix("sources/") else { continue }
            // A folder named like a spec file, or below sources/, is walked, not read.
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { continue }
            switch BoundedFile.read(path) {
            case .success(let bytes):
                files.append(File(path: relative, sha256: SHA256.hex(bytes)))
            case .failure(.tooLarge(let size)):
                throw ReadError(description: "cannot read \(path): " + BoundedFile.tooLargeMessage(size))
            case .failure(.unreadable(let reason)):
                throw ReadError(description: "cannot read \(path) (\(reason))")
            }
        }
        guard !files.isEmpty else { throw ReadError(description: "the spec folder \(specRoot) holds no spec file") }
        return SpecDigest(files: files)
    }
}
