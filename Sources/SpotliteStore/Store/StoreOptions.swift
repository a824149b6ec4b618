import Foundation
import Logging

/// How a ``SpotliteStore`` opens its file.
public struct StoreOptions: Sendable {
    /// Open without writing anything: no tables or triggers are created, foreign changes are not sealed
    /// (they show in history once a writable handle, in any process, seals them), and writes throw
    /// ``SpotliteStoreError/readOnlyStore(operation:)``. For processes that only read.
    public var readOnly: Bool
    /// How long a write waits for another process's write to finish before failing with SQLITE_BUSY.
    public var busyTimeout: TimeInterval
    /// The most concurrent read connections.
    public var maximumReaderCount: Int
    /// Where problems of the background change watcher are reported.
    public var logger: Logger?

    /// Options with the defaults above: writable, a 10-second busy timeout, five readers, no logger.
    public init(readOnly: Bool = false, busyTimeout: TimeInterval = 10, maximumReaderCount: Int = 5, logger: Logger? = nil) {
        self.readOnly = readOnly
        self.busyTimeout = busyTimeout
        self.maximumReaderCount = maximumReaderCount
        self.logger = logger
    }
}
