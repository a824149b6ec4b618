/// Counts with their noun in the right number: "1 line", "2 lines", "1 change", "1,000 changes".
enum Plural {
    static func count(_ value: Int, _ singular: String, plural: String? = nil) -> String {
        "\(Terminal.number(value)) \(value == 1 ? singular : (plural ?? singular + "s"))"
    }
}
