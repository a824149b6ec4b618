import SpotliteStore

extension SpotliteConfiguration {
    /// The store model the configuration describes: one table per entity, with the key and the fields as columns.
    ///
    /// The key is an integer column when the key is also configured as a `number` field, text otherwise. Number and
    /// date columns take any SQLite type (integers stay integers, ISO dates stay text); the others are text.
    public var storeModel: StoreModel {
        StoreModel(entities: entities.map(\.entityDescription))
    }
}

extension EntityConfiguration {
    /// The store's description of this entity's table.
    public var entityDescription: EntityDescription {
        let keyType: KeyType = field(named: key)?.type == .number ? .integer : .text
        let attributes = fields.filter { $0.name != key }.map { field in
            AttributeDescription(name: field.name, type: field.type.attributeType)
        }
        return EntityDescription(name: name, key: key, keyType: keyType, attributes: attributes,
                                 preserveOnDelete: preserveOnDelete)
    }
}

extension FieldType {
    var attributeType: AttributeType {
        switch self {
        case .text, .keyword, .stored: .text
        case .number, .date: .any
        }
    }
}

extension SpotliteConfiguration {
    /// The cleanup policy `[history]` describes: required authors are the listed authors minus the batch authors.
    /// The indexer is not listed: it registers itself in the store as a consumer when it saves its position, so
    /// every cleanup waits for it while it exists, and `deleteIndex()` unregisters it.
    public var deletionPolicy: HistoryDeletionPolicy {
        HistoryDeletionPolicy(requiredAuthors: history.requiredAuthors,
                      listedAuthors: history.authors,
                      maximumDuration: history.maximumDuration.map { duration in
                          Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                      })
    }
}

extension SpotliteConfiguration {
    /// A tracker for `currentAuthor` configured by `[history]`: its authors, batch and mirror authors, whether
    /// unattributed writes are delivered, deletion schedule and maximum duration. Cleanup waits for the indexer
    /// through its registration in the store.
    public func trackerConfiguration(currentAuthor: String, includesMirrorAuthors: Bool = false,
                                     autoStart: Bool = true) -> HistoryTrackerConfiguration {
        return HistoryTrackerConfiguration(
            currentAuthor: currentAuthor, allAuthors: history.authors, batchAuthors: history.batchAuthors,
            mirrorAuthors: history.mirrorAuthors, includesMirrorAuthors: includesMirrorAuthors,
            includesUnattributedTransactions: history.deliversUnattributedTransactions, deletionSchedule: history.deletionSchedule,
            maximumDuration: history.maximumDuration, autoStart: autoStart)
    }
}
