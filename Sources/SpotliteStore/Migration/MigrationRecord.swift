import Foundation

/// One entry of a store's migration log: how it came to a model version.
public struct MigrationRecord: Sendable, Hashable {
    /// What happened.
    public enum Event: String, Sendable, Hashable, Codable {
        /// The store's model tables were created at this version.
        case created
        /// A store that recorded no version was found to be at this version, which it now records.
        case adopted
        /// A lightweight stage ran.
        case lightweight
        /// A custom stage ran.
        case custom
    }

    /// What happened.
    public var event: Event
    /// The version before; nil for `created` and `adopted`.
    public var from: ModelVersionID?
    /// The version after.
    public var to: ModelVersionID
    /// The history transaction holding the stage's data changes (author ``StagedMigrationManager/author``); nil when
    /// the stage changed no rows.
    public var token: HistoryToken?
    /// When the entry was committed.
    public var date: Date

    /// A record of one step, as the migration log stores it.
    public init(event: Event, from: ModelVersionID?, to: ModelVersionID, token: HistoryToken?, date: Date) {
        self.event = event
        self.from = from
        self.to = to
        self.token = token
        self.date = date
    }
}
