/// Text compared and hashed byte for byte (see SpotliteStore's `ExactValue`): the identity Xapian gives terms.
struct ExactText: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ text: String) {
        bytes = Array(text.utf8)
    }
}
