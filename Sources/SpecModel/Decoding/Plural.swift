/// A count with its noun, singular for exactly one: `1 request`, `0 requests`, `2 requests`.
public enum Plural {
    public static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }
}
