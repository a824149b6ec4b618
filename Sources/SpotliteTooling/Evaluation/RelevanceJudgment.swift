import Foundation
import SpotliteStore
import SpotliteSearch
/// A known-item query: the text a user would type, and the key of the one record they are looking for.
package struct RelevanceJudgment: Sendable, Hashable {
    /// The key of the record that should come first.
    package var key: String
    /// The query text, in Xapian's query syntax.
    package var query: String

    /// A judgment: `query` should find the record `key` first.
    package init(key: String, query: String) {
        self.key = key
        self.query = query
    }
}
