import Spotlite

/// The exit statuses of `spotlite`, documented in docs/cli.md and in `spotlite help`:
/// 0 success; 1 a search found nothing (like grep); 2 a usage error on the command line; 3 a problem with what was
/// given (the configuration, an input file, a query, a name); 4 the store or the index failed (SQLite or Xapian, a
/// full disk, a lock held by another process).
enum ExitStatus {
    static let success: Int32 = 0
    static let noResults: Int32 = 1
    static let usage: Int32 = 2
    static let input: Int32 = 3
    static let failure: Int32 = 4

    /// The text shown in help screens and the man page.
    static let documentation = """
        EXIT STATUS
          0  success
          1  search: nothing found (like grep); every other command: not used
          2  usage error: unknown command or option, missing or invalid argument
          3  what you gave is wrong: the configuration, an input file, a query, an entity or field name
          4  the store or the index failed: SQLite or Xapian error, full disk, read-only store or index,
             a shard unavailable, locked by another process
        """
}

extension ExitStatus {
    /// The status for an error of the library: 4 when the store or index itself failed or is busy, else 3.
    static func status(of error: any Error) -> Int32 {
        switch error {
        case SearchError.indexLocked, SearchError.cannotWrite, SearchError.indexCorrupt, SearchError.engine,
             SearchError.indexingRunning, SearchError.shardUnavailable, SearchError.shardIdentityChanged,
             SearchError.indexPartlyDeleted, SearchError.historyDeletedWhileRebuilding:
            failure
        case SpotliteStoreError.readOnlyStore, SpotliteStoreError.unsupportedHistorySchema:
            failure
        case ReplicationError.unreachable, ReplicationError.cannotServe, ReplicationError.toolMissing:
            failure
        default:
            input
        }
    }
}
