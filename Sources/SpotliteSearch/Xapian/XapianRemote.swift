import CXapian

/// Where a `xapian-tcpsrv` serves one database, and how long to wait for it.
package struct XapianRemote: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address.
    package var host: String
    /// The server's TCP port (1 to 65535).
    package var port: Int
    /// How long any one operation may take before it fails with `.networkTimeout`; zero waits forever.
    package var timeout: Duration
    /// How long connecting may take before it fails with `.networkTimeout`; zero waits forever.
    package var connectTimeout: Duration

    /// Xapian's defaults are no operation timeout for writers and ten seconds to connect: a shard that stopped
    /// answering would hang an update for ever, so both are bounded here.
    package static let defaultTimeout = Duration.seconds(30)
    package static let defaultConnectTimeout = Duration.seconds(5)

    package init(host: String, port: Int, timeout: Duration = defaultTimeout,
                 connectTimeout: Duration = defaultConnectTimeout) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }

    /// `HOST:PORT`, brackets around an IPv6 address.
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The port as the shim takes it: out-of-range values become 0, which the shim rejects with a clear error.
    var shimPort: UInt32 { (1...65535).contains(port) ? UInt32(port) : 0 }
    var shimTimeout: UInt32 { Self.milliseconds(timeout) }
    var shimConnectTimeout: UInt32 { Self.milliseconds(connectTimeout) }

    private static func milliseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let total = seconds.multipliedReportingOverflow(by: 1000)
        guard !total.overflow else { return UInt32.max }
        let milliseconds = total.partialValue + attoseconds / 1_000_000_000_000_000
        // Zero means "no limit" to Xapian: a positive duration under a millisecond still gets one.
        if milliseconds == 0, duration > .zero { return 1 }
        return UInt32(clamping: milliseconds)
    }
}

extension XapianDatabase {
    /// Opens the database `remote` serves, read-only.
    /// - Throws: `SearchError.engine` with `.network` (refused, unreachable, hung up) or `.networkTimeout`.
    package convenience init(remote: XapianRemote) throws {
        let opened = try xapianCall {
            cx_database_open_remote(remote.host, remote.shimPort, remote.shimTimeout, remote.shimConnectTimeout, $0)
        }
        guard let opened else {
            throw XapianError.shimFailure("opening \(remote) returned no database")
        }
        self.init(handle: opened)
    }

    /// Adds the database `remote` serves to those searched together.
    package func addDatabase(remote: XapianRemote) throws {
        _ = try xapianCall {
            cx_database_add_remote(handle, remote.host, remote.shimPort, remote.shimTimeout, remote.shimConnectTimeout, $0)
        }
    }

    /// Adds the databases `other` views to those searched together, sharing its connections or files.
    package func addDatabase(_ other: XapianDatabase) throws {
        _ = try xapianCall { cx_database_add(handle, other.handle, $0) }
    }

    /// The database's UUID; empty when it has none (several databases searched together).
    package func uuid() throws -> String {
        try XapianBytes.readString { cx_database_get_uuid(handle, $0, $1, $2) }
    }
}

extension XapianWritableDatabase {
    /// Opens the database `remote` serves (`xapian-tcpsrv --writable`, which creates it when missing) for writing.
    /// - Parameter retryLock: wait while another client writes it instead of failing with `.databaseLock`.
    /// - Throws: `SearchError.engine` with `.network`, `.networkTimeout` or `.databaseLock`.
    package convenience init(remote: XapianRemote, retryLock: Bool = false) throws {
        let opened = try xapianCall {
            cx_writable_database_open_remote(remote.host, remote.shimPort, remote.shimTimeout, remote.shimConnectTimeout,
                                             retryLock ? cx_db_retry_lock : 0, $0)
        }
        guard let opened else {
            throw XapianError.shimFailure("opening \(remote) returned no database")
        }
        self.init(handle: opened)
    }

    /// The database's UUID: its identity, which a re-created or different database does not share.
    package func uuid() throws -> String {
        try XapianBytes.readString { cx_writable_database_get_uuid(handle, $0, $1, $2) }
    }

    /// Deletes every document indexed by a term starting with `prefix` except those indexed by `keep`; returns how
    /// many terms were swept.
    /// - Parameter spellingSlot: the value slot where each document recorded the spelling words it fed (see
    ///   ``writeDocument(uniqueTerm:document:spellingWords:slot:fresh:)``): they are taken out of the spelling data
    ///   with the document. Nil where documents keep no record (a remote shard's).
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    @discardableResult
    package func sweep(prefix: String, keeping keep: String, spellingSlot: UInt32? = nil) throws -> Int {
        try XapianBytes.with(prefix) { prefixPointer, prefixLength in
            try XapianBytes.with(keep) { keepPointer, keepLength in
                var swept: UInt32 = 0
                _ = try xapianCall {
                    cx_writable_database_sweep_prefix(handle, prefixPointer, prefixLength, keepPointer, keepLength,
                                                      spellingSlot ?? CX_NO_SPELLING_RECORD, &swept, $0)
                }
                return Int(swept)
            }
        }
    }
}
