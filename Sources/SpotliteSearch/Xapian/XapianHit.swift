import Foundation

/// One search result.
package struct XapianHit: Sendable, Equatable {
    /// Document id: renumbered by compaction, interleaved across combined databases; identify documents by
    /// their data or id term instead.
    package let docid: UInt32
    /// 0-based position in the whole result list.
    package let rank: Int
    /// BM25 weight.
    package let weight: Double
    /// Weight as a percentage of the best possible.
    package let percent: Int
    /// The document's data.
    package let data: Data
}
