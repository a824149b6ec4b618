import CXapian

/// Words left out of indexing and queries.
package enum XapianStopwords: Sendable, Equatable {
    /// Keep every word.
    case none
    /// The shim's built-in English list ("a", "the", "and", ...).
    case english
    /// These words (lower case).
    case words([String])

    /// Builds the shim's stopper for this list; nil for `.none`. The caller frees it with `cx_stopper_free`.
    func makeStopper() throws -> OpaquePointer? {
        switch self {
        case .none:
            return nil
        case .english:
            return try xapianCall { cx_stopper_new_english($0) }
        case .words(let words):
            let stopper = try xapianCall { cx_stopper_new($0) }
            do {
                for word in words {
                    try XapianBytes.with(word) { pointer, length in
                        _ = try xapianCall { cx_stopper_add(stopper, pointer, length, $0) }
                    }
                }
            } catch {
                cx_stopper_free(stopper)
                throw error
            }
            return stopper
        }
    }

    /// Runs `body` with the shim's stopper for this list (nil for `.none`), freeing it afterwards.
    func withStopper<Result>(_ body: (OpaquePointer?) throws -> Result) throws -> Result {
        let stopper = try makeStopper()
        defer { cx_stopper_free(stopper) }
        return try body(stopper)
    }
}
