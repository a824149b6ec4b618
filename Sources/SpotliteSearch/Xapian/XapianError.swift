import CXapian

/// A failure of the Xapian engine (or of the shim around it), typed once where it crosses the C boundary.
///
/// Nothing throws it on its own: the wrappers of the engine throw it inside ``SearchError/engine(_:outcome:)``, and
/// the public API either passes that on or turns it into a more specific ``SearchError`` (a lock into
/// ``SearchError/indexLocked(path:holderPID:)``, damage into ``SearchError/indexCorrupt(path:reason:)``, a bad query
/// into ``SearchError/invalidQuery(query:reason:)``). Decide by ``code`` (or ``SearchError/engineCode``); ``type``
/// and ``message`` are Xapian's own words, for people.
public struct XapianError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What kind of failure happened: one case per Xapian error class that Spotlite tells apart.
    public enum Code: Sendable, Hashable {
        /// Another writer holds the database's write lock (`DatabaseLockError`).
        case databaseLock
        /// The revision being read was overwritten by a writer; reopen and retry (`DatabaseModifiedError`).
        case databaseModified
        /// No database exists at the path (`DatabaseNotFoundError`).
        case databaseNotFound
        /// The database could not be opened (`DatabaseOpeningError`).
        case databaseOpening
        /// The database's format version is not supported (`DatabaseVersionError`).
        case databaseVersion
        /// The database is corrupt (`DatabaseCorruptError`) or a table was cut short (Xapian's "EOF reading block",
        /// reported as a plain `DatabaseError`): rebuilding the index from the store repairs it.
        case databaseCorrupt
        /// The database could not be created (`DatabaseCreateError`).
        case databaseCreate
        /// The database was closed (`DatabaseClosedError`).
        case databaseClosed
        /// Another database failure, such as a failed write on a full disk (`DatabaseError`): rebuilding does not help.
        case database
        /// The query text could not be parsed (`QueryParserError`).
        case queryParser
        /// A wildcard expanded to more terms than allowed (`WildcardError`).
        case wildcard
        /// An argument was rejected (`InvalidArgumentError`).
        case invalidArgument
        /// The call is not allowed in the current state (`InvalidOperationError`).
        case invalidOperation
        /// An index or value was out of range (`RangeError`).
        case range
        /// A document does not exist (`DocNotFoundError`).
        case documentNotFound
        /// The feature is not available in this Xapian build (`FeatureUnavailableError`).
        case featureUnavailable
        /// The feature is not implemented (`UnimplementedError`).
        case unimplemented
        /// A remote database failed: the connection broke or could not be made (`NetworkError`).
        case network
        /// A remote database did not answer in time (`NetworkTimeoutError`).
        case networkTimeout
        /// Data could not be serialised or unserialised (`SerialisationError`).
        case serialisation
        /// Another Xapian error; see `XapianError.type`.
        case otherXapianError
        /// Memory ran out.
        case outOfMemory
        /// A C++ standard library exception.
        case standardLibraryException
        /// An exception of unknown type.
        case unknown
        /// A search ran past its time limit (the shim's `TimeLimitError`).
        case timeLimit

        /// Whether the index's files are damaged, so that rebuilding the index from the store repairs it (rather
        /// than a failure of the disk, the network or the caller, which a rebuild would only repeat).
        public var isDamage: Bool { self == .databaseCorrupt }

        /// Whether a remote database failed (unreachable, broken connection, no answer in time).
        public var isNetwork: Bool { self == .network || self == .networkTimeout }

        init(_ code: cx_error_code) {
            switch code {
            case CX_ERR_DATABASE_LOCK: self = .databaseLock
            case CX_ERR_DATABASE_MODIFIED: self = .databaseModified
            case CX_ERR_DATABASE_NOT_FOUND: self = .databaseNotFound
            case CX_ERR_DATABASE_OPENING: self = .databaseOpening
            case CX_ERR_DATABASE_VERSION: self = .databaseVersion
            case CX_ERR_DATABASE_CORRUPT: self = .databaseCorrupt
            case CX_ERR_DATABASE_CREATE: self = .databaseCreate
            case CX_ERR_DATABASE_CLOSED: self = .databaseClosed
            case CX_ERR_DATABASE: self = .database
            case CX_ERR_QUERY_PARSER: self = .queryParser
            case CX_ERR_WILDCARD: self = .wildcard
            case CX_ERR_INVALID_ARGUMENT: self = .invalidArgument
            case CX_ERR_INVALID_OPERATION: self = .invalidOperation
            case CX_ERR_RANGE: self = .range
            case CX_ERR_DOC_NOT_FOUND: self = .documentNotFound
            case CX_ERR_FEATURE_UNAVAILABLE: self = .featureUnavailable
            case CX_ERR_UNIMPLEMENTED: self = .unimplemented
            case CX_ERR_NETWORK: self = .network
            case CX_ERR_NETWORK_TIMEOUT: self = .networkTimeout
            case CX_ERR_SERIALISATION: self = .serialisation
            case CX_ERR_XAPIAN_OTHER: self = .otherXapianError
            case CX_ERR_BAD_ALLOC: self = .outOfMemory
            case CX_ERR_STD_EXCEPTION: self = .standardLibraryException
            case CX_ERR_TIME_LIMIT: self = .timeLimit
            default: self = .unknown
            }
        }
    }

    /// What kind of failure happened.
    public let code: Code
    /// Xapian's name for the error type, e.g. "DatabaseLockError".
    public let type: String
    /// Xapian's message.
    public let message: String
    /// True when the failed call was a write and Xapian discarded every change since the last commit
    /// (documents and metadata): replay the batch from the last committed position.
    public let batchLost: Bool

    /// Creates an error; the shim normally creates them, tests and callers may too.
    package init(code: Code, type: String, message: String, batchLost: Bool = false) {
        self.code = code
        self.type = type
        self.message = message
        self.batchLost = batchLost
    }

    /// Copies a shim error and frees it.
    init(consuming error: OpaquePointer) {
        defer { cx_error_free(error) }
        var length = 0
        let messagePointer = cx_error_get_message(error, &length)
        let messageBytes = messagePointer.map { UnsafeRawBufferPointer(start: $0, count: length) }
        self.init(
            code: Code(cx_error_get_code(error)),
            type: String(cString: cx_error_get_type(error)),
            message: messageBytes.map { String(decoding: $0, as: UTF8.self) } ?? "",
            batchLost: cx_error_batch_lost(error)
        )
    }

    /// "Type: message", with a note when the uncommitted batch was lost.
    public var description: String {
        let text = "\(type): \(message)"
        return batchLost ? text + " (every change since the last commit was discarded)" : text
    }
}

extension XapianError {
    /// A shim call that failed without an error of its own (it returned nothing), as the wrappers throw it.
    static func shimFailure(_ message: String) -> SearchError {
        .engine(XapianError(code: .unknown, type: "unknown", message: message))
    }
}

/// Runs a shim call that reports failure through a `cx_error **` out-parameter, turning it into a thrown
/// ``SearchError/engine(_:outcome:)``: the one place where the engine's failures become the library's error.
@inline(__always)
func xapianCall<Result>(_ body: (UnsafeMutablePointer<OpaquePointer?>) -> Result) throws -> Result {
    var error: OpaquePointer?
    let result = body(&error)
    if let error {
        throw SearchError.engine(XapianError(consuming: error))
    }
    return result
}
