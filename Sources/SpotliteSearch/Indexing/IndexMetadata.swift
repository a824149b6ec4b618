import Foundation
import SpotliteStore

/// The metadata a Spotlite index keeps beside its documents, committed atomically with them: the token is the
/// index's truth about how much history it reflects.
package struct IndexMetadata: Sendable, Hashable {
    static let tokenKey = "spotlite.token"
    /// Inside the transaction after the token, the id of the last change indexed (see ``IndexCheckpoint``); absent
    /// between transactions.
    static let changeKey = "spotlite.change"
    static let storeIDKey = "spotlite.store_id"
    static let fingerprintKey = "spotlite.fingerprint"
    static let descriptionKey = "spotlite.configuration"
    static let updatedAtKey = "spotlite.updated_at"
    static let formatKey = "spotlite.format"
    /// The store's model version (name and checksum) the documents were built from; absent for unversioned stores.
    static let modelVersionKey = "spotlite.model_version"
    /// The store's capture gap count (see `CaptureGap`) the documents were built after; absent means 0.
    static let captureGapKey = "spotlite.capture_gap"
    /// Which shard of how many a database is (`"1/4"`); written in every shard.
    static let shardKey = "spotlite.shard"
    /// Bump when the document layout changes, so old indexes rebuild. 3: blob keys have id terms of their own;
    /// 4: sharded generations; 5: each document records the spelling words it fed (value slot 0), without which
    /// updates could not take an old document's words out of the spelling table; 6: runs of CJK characters are
    /// split into n-grams (an older index holds such a run as one term, which queries no longer look for); 7: each
    /// record holds a digest of the document's terms apart from one of the rest, so that an update changing only
    /// stored fields or values leaves the terms alone (a version writing 6 would read these records as empty and
    /// leave their words in the spelling table: it must rebuild); 8: stop words are indexed with their stems too
    /// (a query of stop words alone searches their stems, which an older index lacks); 9: a keyword column holding a
    /// JSON array (`["a","b"]`, as `import` stores one) gives one value per element (an older index holds the
    /// array's text as one value); 10: each document holds its id term in a value slot (``DocumentBuilder/idSlot``),
    /// which searches over remote shards name their candidates by, for the servers to work the proximity boost out
    /// (an older index's documents lack it, and such searches would read positions a round trip at a time), and a
    /// record gives its spelling words as counts of the document's own unprefixed terms instead of spelling each word
    /// out (the index shrinks by about a tenth; only a rebuild rewrites every record, so an index of 9 rebuilds).
    static let format = "10"
    /// The formats this version updates without rebuilding (an older format may be listed when it differs only in
    /// what this version still reads); the first commit marks the index ``format``.
    static let updatableFormats: Set<String> = [format]

    /// Every key the index writes, to empty a shard that stays in use (`deleteIndex()` of placed shards).
    static let allKeys = [tokenKey, changeKey, storeIDKey, fingerprintKey, descriptionKey, updatedAtKey, formatKey,
                          modelVersionKey, captureGapKey, shardKey]

    package var token: HistoryToken?
    /// The last change indexed inside the transaction after ``token``, or nil.
    var changeID: Int64?
    var storeID: String?
    var fingerprint: String?
    var format: String?
    var updatedAt: Date?
    var modelVersion: String?
    var captureGap = 0
    /// Which shard of how many (`"1/4"`); nil in indexes written before sharding.
    var shard: String?

    init(token: HistoryToken?, storeID: String?, fingerprint: String?, format: String?, updatedAt: Date?) {
        self.token = token
        self.storeID = storeID
        self.fingerprint = fingerprint
        self.format = format
        self.updatedAt = updatedAt
    }

    package init(reading metadata: (String) throws -> String?) throws {
        token = try metadata(Self.tokenKey).flatMap(Int64.init).map(HistoryToken.init(rawValue:))
        changeID = try metadata(Self.changeKey).flatMap(Int64.init)
        storeID = try metadata(Self.storeIDKey)
        fingerprint = try metadata(Self.fingerprintKey)
        format = try metadata(Self.formatKey)
        updatedAt = try metadata(Self.updatedAtKey).flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
        modelVersion = try metadata(Self.modelVersionKey)
        captureGap = try metadata(Self.captureGapKey).flatMap { Int($0) } ?? 0
        shard = try metadata(Self.shardKey)
    }

    static func tokenText(_ token: HistoryToken?) -> String { String(token?.rawValue ?? 0) }

    /// What this database has committed.
    var checkpoint: IndexCheckpoint { IndexCheckpoint(token: token, changeID: changeID) }

    /// The metadata entries recording `checkpoint` (an empty value removes the change id between transactions).
    static func entries(for checkpoint: IndexCheckpoint) -> [(key: String, value: String)] {
        [(tokenKey, tokenText(checkpoint.token)), (changeKey, checkpoint.changeID.map { String($0) } ?? "")]
    }
}
