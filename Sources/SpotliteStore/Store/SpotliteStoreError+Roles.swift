extension SpotliteStoreError {
    /// What a name given to the model is used for (``invalidIdentifier(_:role:)``, ``reservedIdentifier(_:role:)``).
    public enum NameRole: Sendable, Hashable, CustomStringConvertible {
        /// An entity's name, which names its table.
        case entityName
        /// The key column of an entity.
        case key(entity: String)
        /// An attribute (a column) of an entity.
        case attribute(entity: String)

        /// The role as the error's description words it.
        public var description: String {
            switch self {
            case .entityName: return "entity name"
            case let .key(entity): return "key of entity \(entity)"
            case let .attribute(entity): return "attribute of entity \(entity)"
            }
        }
    }

    /// Where two names collide (``duplicateName(_:scope:)``).
    public enum NameScope: Sendable, Hashable, CustomStringConvertible {
        /// The names of the model's entities.
        case entities
        /// The attribute names of one entity.
        case attributes(entity: String)

        /// The scope as the error's description words it.
        public var description: String {
            switch self {
            case .entities: return "the model's entities"
            case let .attributes(entity): return "the attributes of entity \(entity)"
            }
        }
    }

    /// The list of an entity that names its columns (``unknownColumn(_:entity:role:)``).
    public enum ColumnList: Sendable, Hashable, CustomStringConvertible {
        /// The tombstone columns kept when a record is deleted (`preserve_on_delete`).
        case preserveOnDelete

        /// The list as the error's description words it: its name in the configuration.
        public var description: String {
            switch self {
            case .preserveOnDelete: return "preserve_on_delete"
            }
        }
    }

    /// Which name of a tracker's configuration is not a usable author name (``invalidAuthorName(_:role:)``).
    public enum AuthorRole: Sendable, Hashable, CustomStringConvertible {
        /// ``HistoryTrackerConfiguration/currentAuthor``.
        case currentAuthor
        /// One of ``HistoryTrackerConfiguration/allAuthors``.
        case listedAuthor
        /// One of ``HistoryTrackerConfiguration/mirrorAuthors``.
        case mirrorAuthor
        /// One of ``HistoryTrackerConfiguration/consumers``.
        case consumer

        /// The role as the error's description words it.
        public var description: String {
            switch self {
            case .currentAuthor: return "the current author"
            case .listedAuthor: return "the listed author"
            case .mirrorAuthor: return "the mirror author"
            case .consumer: return "the consumer"
            }
        }
    }

    /// Which duration of a tracker's configuration is not positive (``invalidDuration(_:role:)``).
    public enum DurationRole: Sendable, Hashable, CustomStringConvertible {
        /// The interval of ``HistoryDeletionSchedule/every(_:)``.
        case deletionInterval
        /// ``HistoryTrackerConfiguration/maximumDuration``.
        case maximumDuration

        /// The role as the error's description words it.
        public var description: String {
            switch self {
            case .deletionInterval: return "deletion interval"
            case .maximumDuration: return "maximum duration"
            }
        }
    }
}

extension SpotliteStoreError {
    /// What a read-only store was asked to do (``readOnlyStore(operation:)``).
    public enum WriteOperation: Sendable, Hashable, CustomStringConvertible {
        /// ``SpotliteStore/write(author:context:_:)`` and the other writes.
        case write
        /// Saving an author's position.
        case savePosition
        /// Removing an author's position.
        case removePosition
        /// ``SpotliteStore/deleteHistory(_:dryRun:)``.
        case deleteHistory
        /// ``SpotliteStore/sealPendingChanges()``.
        case sealPendingChanges
        /// Migrating the store's model.
        case migrate
        /// A ``HistoryTracker``, which saves its position in the store.
        case trackHistory
        /// A ``HistoryDeleter`` that is not a dry run.
        case cleanHistory
        /// Registering a history consumer's position.
        case registerConsumer
        /// Unregistering a history consumer.
        case unregisterConsumer
        /// A ``HistoryConsumerDriver``, which saves the consumer's position in the store.
        case consumeHistory

        /// The operation as the error's description words it, after "cannot".
        public var description: String {
            switch self {
            case .write: return "write"
            case .savePosition: return "save a position"
            case .removePosition: return "remove a position"
            case .deleteHistory: return "delete history"
            case .sealPendingChanges: return "seal pending changes"
            case .migrate: return "migrate"
            case .trackHistory: return "track history (the tracker saves its position in the store)"
            case .cleanHistory: return "clean history"
            case .registerConsumer: return "register a history consumer"
            case .unregisterConsumer: return "unregister a history consumer"
            case .consumeHistory: return "consume history (the consumer's position is saved in the store)"
            }
        }
    }
}
