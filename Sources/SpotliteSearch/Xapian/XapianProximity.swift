/// A proximity boost applied by re-ranking the best matches of a search (see `cx_proximity_options`): the query runs
/// as given, then its best `depth` matches are weighed again with documents where consecutive words of `words` lie
/// within `window` positions weighted up by `weight` (shared among the pairs), and sorted by that weight.
package struct XapianProximity {
    /// The query's words parsed without stemming: stemmed terms have no positions.
    package var words: XapianQuery
    package var window: Int
    package var weight: Double
    /// How many of the best matches are re-ranked; the positions of at most this many documents are read.
    package var depth: Int
    /// The value slot where every document holds its unique id term, if any: over remote shards the servers then
    /// work the boost out themselves in one more match restricted to the candidates, instead of their positions
    /// being read from here a round trip at a time.
    package var idSlot: UInt32?

    package init(words: XapianQuery, window: Int, weight: Double, depth: Int, idSlot: UInt32? = nil) {
        self.words = words
        self.window = window
        self.weight = weight
        self.depth = depth
        self.idSlot = idSlot
    }
}
