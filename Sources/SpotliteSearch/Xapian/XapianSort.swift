/// Order of search results.
package enum XapianSort: Sendable, Equatable {
    /// Best match first.
    case relevance
    /// By value slot `slot`, smallest first (numbers must be stored with `setValue(slot:number:)`).
    case valueAscending(slot: UInt32)
    /// By value slot `slot`, largest first.
    case valueDescending(slot: UInt32)
}
