extension FieldType {
    /// Every type-specific option key of a field table (`type` and `store` apply to all types).
    static let optionKeys: Set<String> = ["weight", "prefix", "facet", "separator", "sortable"]

    /// The type-specific option keys this type accepts.
    var optionKeys: Set<String> {
        switch self {
        case .text: ["weight", "prefix"]
        case .keyword: ["facet", "separator"]
        case .number, .date: ["sortable"]
        case .stored: []
        }
    }

    /// Whether queries name this field by its own name: `field:value` filters and `field:LOW..HIGH` ranges.
    var isQueriedByName: Bool {
        switch self {
        case .keyword, .number, .date: true
        case .text, .stored: false
        }
    }
}
