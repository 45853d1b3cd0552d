import ConformanceProtocol
import Foundation
import JSONCore

/// The parameters of a request body, form-encoded (RFC 6749 §3.2, the body as text) or a JSON object.
///
/// In message mode a form body travels as a JSON string with `content-type:
/// application/x-www-form-urlencoded`; over loopback HTTP the runner turns a body that is not JSON into the
/// same string. A JSON body is an object.
public struct RequestParameters: Sendable, Hashable {
    public let values: [String: String]

    public subscript(name: String) -> String? { values[name] }

    /// Why a body could not be read as parameters.
    public struct Problem: Error, Sendable, Hashable {
        public let description: String
    }

    public static func parse(_ request: HTTPRequestMessage) -> Result<RequestParameters, Problem> {
        let contentType = request.header("content-type")?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        switch (contentType, request.body) {
        case (_, .null):
            return .success(RequestParameters(values: [:]))
        case ("application/x-www-form-urlencoded", .string(let text)), (nil, .string(let text)):
            return form(text)
        case ("application/json", .object(let object)), (nil, .object(let object)):
            return json(object)
        case ("application/x-www-form-urlencoded", _):
            return .failure(Problem(description: "a form-encoded body must be text"))
        case ("application/json", _):
            return .failure(Problem(description: "a JSON body must be an object"))
        case (let other?, _):
            return .failure(Problem(description: "unsupported content type '\(other)'"))
        default:
            return .failure(Problem(description: "the body is neither a form nor a JSON object"))
        }
    }

    /// `application/x-www-form-urlencoded`: `+` is a space, `%XX` a byte; a parameter given twice is refused.
    static func form(_ text: String) -> Result<RequestParameters, Problem> {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                return .failure(Problem(description: "malformed percent-encoding"))
            }
            guard values[name] == nil else {
                return .failure(Problem(description: "parameter '\(name)' given more than once"))
            }
            values[name] = value
        }
        return .success(RequestParameters(values: values))
    }

    static func json(_ object: [String: JSONValue]) -> Result<RequestParameters, Problem> {
        var values: [String: String] = [:]
        for (name, value) in object {
            switch value {
            case .string(let text): values[name] = text
            case .null: continue
            default: return .failure(Problem(description: "parameter '\(name)' is not a string"))
            }
        }
        return .success(RequestParameters(values: values))
    }

    private static func decode(_ part: Substring) -> String? {
        String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
