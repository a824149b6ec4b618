import Foundation

/// What an observer hook receives: the changes of one entity and one operation within one transaction, in the
/// order they were made (five inserts in one save arrive together; separate saves arrive separately).
public struct ObservedChanges: Sendable, Hashable {
    /// The transaction's token.
    public var token: HistoryToken
    /// When the transaction was written.
    public var timestamp: Date
    /// The transaction's author (nil: a program that does not use Spotlite).
    public var author: String?
    /// The transaction's context name.
    public var contextName: String?
    /// The entity all ``changes`` belong to.
    public var entity: String
    /// The operation all ``changes`` are.
    public var operation: HistoryChangeType
    /// The changes, in change order.
    public var changes: [HistoryChange]

    /// Changes of one entity and operation within the transaction `token`.
    public init(
        token: HistoryToken, timestamp: Date, author: String?, contextName: String?, entity: String,
        operation: HistoryChangeType, changes: [HistoryChange]
    ) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.entity = entity
        self.operation = operation
        self.changes = changes
    }

    /// For deletes, what each deleted row left behind, dated by the transaction; empty for inserts and updates.
    public var tombstones: [HistoryTombstone] {
        guard operation == .delete else { return [] }
        return changes.map { change in
            HistoryTombstone(key: change.key, values: change.tombstone ?? [:], deletionDate: timestamp)
        }
    }

    /// Splits a transaction into groups per entity and operation, ordered by each group's first change.
    static func groups(of transaction: HistoryTransaction) -> [ObservedChanges] {
        struct GroupKey: Hashable {
            var entity: String
            var operation: HistoryChangeType
        }
        var order: [GroupKey] = []
        var changesByGroup: [GroupKey: [HistoryChange]] = [:]
        for change in transaction.changes {
            let key = GroupKey(entity: change.entity, operation: change.changeType)
            if changesByGroup[key] == nil { order.append(key) }
            changesByGroup[key, default: []].append(change)
        }
        return order.map { key in
            ObservedChanges(
                token: transaction.token, timestamp: transaction.timestamp, author: transaction.author,
                contextName: transaction.contextName, entity: key.entity, operation: key.operation,
                changes: changesByGroup[key] ?? [])
        }
    }
}
