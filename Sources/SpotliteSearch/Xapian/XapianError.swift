import CXapian

/// An error reported by Xapian (or by the shim around it), carried across the C boundary.
package struct XapianError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure happened.
    package enum Code: Sendable, Equatable {
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
        /// The database is corrupt (`DatabaseCorruptError`).
        case databaseCorrupt
        /// The database could not be created (`DatabaseCreateError`).
        case databaseCreate
        /// The database was closed (`DatabaseClosedError`).
        case databaseClosed
        /// Another database failure, such as an I/O error (`DatabaseError`).
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
        /// A remote database failed: refused, unreachable or hung up (`NetworkError`).
        case network
        /// A remote database did not answer within its timeout (`NetworkTimeoutError`).
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
    package let code: Code
    /// Xapian's name for the error type, e.g. "DatabaseLockError".
    package let type: String
    /// Xapian's message.
    package let message: String
    /// True when the failed call was a write and Xapian discarded every change since the last commit
    /// (documents and metadata): replay the batch from the last committed position.
    package let batchLost: Bool

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
    package var description: String {
        let text = "\(type): \(message)"
        return batchLost ? text + " (every change since the last commit was discarded)" : text
    }
}

/// Runs a shim call that reports failure through a `cx_error **` out-parameter, turning it into a thrown
/// `XapianError`.
@inline(__always)
func xapianCall<Result>(_ body: (UnsafeMutablePointer<OpaquePointer?>) -> Result) throws -> Result {
    var error: OpaquePointer?
    let result = body(&error)
    if let error {
        throw XapianError(consuming: error)
    }
    return result
}
