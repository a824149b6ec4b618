import Foundation
import GRDB

/// What remains of a deleted row: the values of its entity's `preserveOnDelete` columns and when it was deleted.
public struct HistoryTombstone: Sendable, Hashable {
    /// The key of the deleted row.
    public var key: DatabaseValue
    /// The preserved values by column name (empty when the entity preserves none).
    public var values: [String: DatabaseValue]
    /// When the deleting transaction was written.
    public var deletionDate: Date

    /// A tombstone for the row `key`, deleted at `deletionDate`.
    public init(key: DatabaseValue, values: [String: DatabaseValue], deletionDate: Date) {
        self.key = key
        self.values = values
        self.deletionDate = deletionDate
    }
}
