extension FieldType {
    /// Every type-specific option key of a field table (`type` and `store` apply to all types).
    package static let optionKeys: Set<String> = ["weight", "prefix", "positions", "facet", "separator", "sortable"]

    /// The type-specific option keys this type accepts.
    package var optionKeys: Set<String> {
        switch self {
        case .text: ["weight", "prefix", "positions"]
        case .keyword: ["facet", "separator"]
        case .number, .date: ["sortable"]
        case .stored: []
        }
    }

    /// Whether queries name this field by its own name: `field:value` filters and `field:LOW..HIGH` ranges.
    package var isQueriedByName: Bool {
        switch self {
        case .keyword, .number, .date: true
        case .text, .stored: false
        }
    }
}
