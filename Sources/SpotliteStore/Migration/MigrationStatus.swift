/// Where a store stands against a ``StagedMigrationManager``'s versions, without changing anything.
public struct MigrationStatus: Sendable {
    /// Whether the store file exists.
    public var storeExists: Bool
    /// The version the store records; nil when it records none.
    public var recordedVersion: ModelVersionID?
    /// The version the store is at: the recorded one, or the one its tables match when none is recorded. Nil when
    /// the store does not exist or has no model tables yet (it is then created at the newest version).
    public var storeVersion: ModelVersionID?
    /// The app's newest version.
    public var newestVersion: ModelVersionID
    /// The stages the next migration will run, in order.
    public var pendingStages: [MigrationStage]
    /// The store's migration log, oldest first.
    public var log: [MigrationRecord]

    /// Whether opening the store would change nothing but, at most, record its version.
    public var isUpToDate: Bool { pendingStages.isEmpty }
}
