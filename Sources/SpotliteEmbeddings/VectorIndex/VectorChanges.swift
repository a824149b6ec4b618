import SpotliteStore

/// Vectors to write and records to forget, committed together by ``VectorIndex/commit(_:cursor:)``.
public struct VectorChanges: Sendable {
    /// A record's new vector.
    public struct Upsert: Sendable {
        /// The record.
        public var record: RecordID
        /// Its normalised vector.
        public var vector: [Float]
        /// Whether its text was cut to the model's maximum tokens.
        public var truncated: Bool

        /// A vector for `record`.
        public init(record: RecordID, vector: [Float], truncated: Bool = false) {
            self.record = record
            self.vector = vector
            self.truncated = truncated
        }
    }

    /// Vectors to add or replace.
    public var upserts: [Upsert]
    /// Records whose vector goes.
    public var deletions: [RecordID]

    /// Changes made of `upserts` and `deletions`.
    public init(upserts: [Upsert] = [], deletions: [RecordID] = []) {
        self.upserts = upserts
        self.deletions = deletions
    }
}
