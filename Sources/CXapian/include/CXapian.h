#ifndef CXAPIAN_H
#define CXAPIAN_H

/*
 * CXapian: an exception-safe C interface to Xapian 1.4 for Swift.
 *
 * Conventions that hold for every function below unless its comment says otherwise:
 *
 * - Errors. A fallible function takes `cx_error **err` as its last parameter. `*err` must be NULL on entry.
 *   On failure the function stores a newly allocated error in `*err` (the caller owns it and releases it with
 *   cx_error_free) and returns its failure value: NULL for handles, false for bool, 0 for numbers. On success
 *   `*err` is left NULL. Passing `err == NULL` discards the error (the return value still reports failure).
 *   A call made while `*err` is still set fails at once and leaves that earlier error in place.
 *   No C++ exception ever leaves this interface: every Xapian::Error, std::bad_alloc, std::exception and
 *   unknown exception is turned into a cx_error.
 * - Byte strings. Terms, document data, values, metadata, query text and snippet text are passed as a
 *   pointer plus a length and may contain NUL bytes. A NULL pointer with length 0 means the empty string;
 *   a NULL pointer with a non-zero length is an invalid argument. File paths and stemmer language names are
 *   NUL-terminated C strings.
 * - Returned strings. A function returning bytes through `char **out, size_t *out_len` stores a buffer
 *   allocated with malloc that the caller owns and releases with cx_free. The buffer holds `*out_len` bytes
 *   followed by one extra NUL byte (not counted), so text can also be read as a C string. On failure `*out`
 *   is set to NULL and `*out_len` to 0.
 * - Handles. Every `cx_*_new`/`cx_*_open` function returns a handle the caller owns and releases with the
 *   matching `cx_*_free`, which accepts NULL. Handles are not thread-safe: a handle (and the objects created
 *   from it) must never be used by two threads at the same time.
 * - Constants. Xapian's numeric constants are exported below as `extern const` values read from the Xapian
 *   headers at build time; never hard-code their numbers.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define CX_NOEXCEPT noexcept
extern "C" {
#else
#define CX_NOEXCEPT
#endif

/* MARK: - Errors */

/** What went wrong. Every Xapian error type maps to a specific code or to CX_ERR_XAPIAN_OTHER; none maps to success. */
typedef enum cx_error_code {
    CX_ERR_DATABASE_LOCK = 1,      /**< Xapian::DatabaseLockError: another writer holds the write lock. */
    CX_ERR_DATABASE_MODIFIED,      /**< Xapian::DatabaseModifiedError: the revision being read was overwritten; reopen. */
    CX_ERR_DATABASE_NOT_FOUND,     /**< Xapian::DatabaseNotFoundError: no database at the path. */
    CX_ERR_DATABASE_OPENING,       /**< Xapian::DatabaseOpeningError (other than not found). */
    CX_ERR_DATABASE_VERSION,       /**< Xapian::DatabaseVersionError: unsupported database format version. */
    CX_ERR_DATABASE_CORRUPT,       /**< Xapian::DatabaseCorruptError, and a table cut short (Xapian 1.4 reports "EOF
                                        reading block N" as a plain DatabaseError; the type name stays Xapian's). */
    CX_ERR_DATABASE_CREATE,        /**< Xapian::DatabaseCreateError. */
    CX_ERR_DATABASE_CLOSED,        /**< Xapian::DatabaseClosedError: the database was closed. */
    CX_ERR_DATABASE,               /**< Any other Xapian::DatabaseError (I/O failures such as a full disk). */
    CX_ERR_QUERY_PARSER,           /**< Xapian::QueryParserError: the query text could not be parsed. */
    CX_ERR_WILDCARD,               /**< Xapian::WildcardError: a wildcard expanded beyond its limit. */
    CX_ERR_INVALID_ARGUMENT,       /**< Xapian::InvalidArgumentError, or a NULL handle / bad argument caught by the shim. */
    CX_ERR_INVALID_OPERATION,      /**< Xapian::InvalidOperationError (e.g. cancelling without a transaction). */
    CX_ERR_RANGE,                  /**< Xapian::RangeError, or an index out of range caught by the shim. */
    CX_ERR_DOC_NOT_FOUND,          /**< Xapian::DocNotFoundError. */
    CX_ERR_FEATURE_UNAVAILABLE,    /**< Xapian::FeatureUnavailableError. */
    CX_ERR_UNIMPLEMENTED,          /**< Xapian::UnimplementedError. */
    CX_ERR_NETWORK,                /**< Xapian::NetworkError (other than a timeout): a remote database failed. */
    CX_ERR_SERIALISATION,          /**< Xapian::SerialisationError. */
    CX_ERR_XAPIAN_OTHER,           /**< Any other Xapian::Error (InternalError, AssertionError, ...); see the type name. */
    CX_ERR_BAD_ALLOC,              /**< std::bad_alloc: out of memory. */
    CX_ERR_STD_EXCEPTION,          /**< Any other std::exception (e.g. std::invalid_argument); type is "std::exception". */
    CX_ERR_UNKNOWN,                /**< An exception of unknown type. */
    CX_ERR_TIME_LIMIT,             /**< A search ran past cx_search_options.time_limit; type is "TimeLimitError". */
    CX_ERR_NETWORK_TIMEOUT         /**< Xapian::NetworkTimeoutError: a remote database did not answer in time. */
} cx_error_code;

/** An error reported by a cx function. Owned by the caller; release with cx_error_free. */
typedef struct cx_error cx_error;

/** The error's code. */
cx_error_code cx_error_get_code(const cx_error *err) CX_NOEXCEPT;

/** The error's type name: Xapian's `get_type()` (e.g. "DatabaseLockError"), "bad_alloc", "std::exception" or
 *  "unknown". NUL-terminated; borrowed: valid until cx_error_free(err). */
const char *cx_error_get_type(const cx_error *err) CX_NOEXCEPT;

/** The error's message (Xapian's `get_msg()`, plus its context when it has one, e.g. "(context:
 *  remote:tcp(HOST:PORT))", plus the system error text when Xapian gives one). Borrowed:
 *  valid until cx_error_free(err). Its length is stored in `*length` when `length` is not NULL; the bytes are
 *  also NUL-terminated. */
const char *cx_error_get_message(const cx_error *err, size_t *length) CX_NOEXCEPT;

/** True when the failed call was a write through a cx_writable_database and Xapian may have discarded every
 *  change since the last commit (documents and metadata alike): the caller must treat the whole uncommitted
 *  batch as lost and replay it from its last committed position. */
bool cx_error_batch_lost(const cx_error *err) CX_NOEXCEPT;

/** Releases an error. Accepts NULL. */
void cx_error_free(cx_error *err) CX_NOEXCEPT;

/** Releases a buffer returned through a `char **out` parameter. Accepts NULL. */
void cx_free(void *buffer) CX_NOEXCEPT;

/* MARK: - Handles (opaque; see each type's functions below) */

/** A database opened for writing. Holds the write lock until closed or freed. */
typedef struct cx_writable_database cx_writable_database;

/** A read-only view of one or more databases (shards searched together). */
typedef struct cx_database cx_database;

/** A document being built. */
typedef struct cx_document cx_document;

/** A list of words left out of indexing and queries. */
typedef struct cx_stopper cx_stopper;

/** Turns text into terms of a document. */
typedef struct cx_term_generator cx_term_generator;

/** The words a document feeds to spelling correction, each with its number of occurrences. */
typedef struct cx_spelling_words cx_spelling_words;

/** An immutable query. Combining queries never consumes or changes the inputs. */
typedef struct cx_query cx_query;

/** Parses user query text. */
typedef struct cx_query_parser cx_query_parser;

/** The results of one search, with everything read eagerly, plus what snippets need. */
typedef struct cx_mset cx_mset;

/** A stemmer for snippets that remembers the words it stemmed (cx_stemmer_new). */
typedef struct cx_stemmer cx_stemmer;

/* MARK: - Version and constants */

/** Xapian's version string, e.g. "1.4.22". Static storage owned by Xapian: never freed, never changes. */
const char *cx_version_string(void) CX_NOEXCEPT;

/** Open actions for cx_writable_database_open (exactly one of these)... */
extern const int cx_db_create_or_open;
extern const int cx_db_create_or_overwrite;
extern const int cx_db_create;
extern const int cx_db_open;
/** ...OR-ed with any of these flags. */
extern const int cx_db_no_sync;
extern const int cx_db_full_sync;
extern const int cx_db_retry_lock;

/** Query operators for cx_query_combine and cx_query_parser_set_default_op. */
extern const int cx_op_and;
extern const int cx_op_or;
extern const int cx_op_and_not;
extern const int cx_op_xor;
extern const int cx_op_and_maybe;
extern const int cx_op_filter;

/** Query parser flags for cx_query_parser_parse (OR them together). */
extern const unsigned cx_qp_flag_boolean;
extern const unsigned cx_qp_flag_phrase;
extern const unsigned cx_qp_flag_lovehate;
extern const unsigned cx_qp_flag_boolean_any_case;
extern const unsigned cx_qp_flag_wildcard;
extern const unsigned cx_qp_flag_pure_not;
extern const unsigned cx_qp_flag_partial;
extern const unsigned cx_qp_flag_spelling_correction;
extern const unsigned cx_qp_flag_synonym;
extern const unsigned cx_qp_flag_cjk_ngram;
extern const unsigned cx_qp_flag_no_positions;
extern const unsigned cx_qp_flag_default;

/** Stemming strategies for cx_query_parser_set_stemming_strategy. */
extern const int cx_stem_none;      /**< No stemming. */
extern const int cx_stem_some;      /**< Stem words not starting with a capital letter, as Z-terms (Xapian's default). */
extern const int cx_stem_all;       /**< Stem every word, as terms without the Z marker. */
extern const int cx_stem_all_z;     /**< Stem every word, as Z-terms (capitalised words are stemmed too). */

/** Snippet flags for cx_snippet_options.flags (OR them together). */
extern const unsigned cx_snippet_background_model;
extern const unsigned cx_snippet_exhaustive;
extern const unsigned cx_snippet_empty_without_match;
extern const unsigned cx_snippet_cjk_ngram;

/** Compaction levels for cx_database_compact. */
extern const unsigned cx_compact_standard;
extern const unsigned cx_compact_full;
extern const unsigned cx_compact_fuller;

/** Xapian's "no value slot" marker. */
extern const uint32_t cx_bad_valueno;

/* MARK: - Value serialisation */

/** Encodes a number so that byte-wise string order matches numeric order (Xapian::sortable_serialise).
 *  Stores a malloc'd buffer in `*out` (free with cx_free). */
bool cx_sortable_serialise(double value, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Decodes a value made by cx_sortable_serialise. Bytes that are not such a value decode to some number
 *  without error (Xapian's behaviour). Returns 0 with `*err` set on failure. */
double cx_sortable_unserialise(const char *bytes, size_t length, cx_error **err) CX_NOEXCEPT;

/* MARK: - Writable database */

/** Opens (or creates, depending on `flags`: one open action OR-ed with flags, see the constants above) a
 *  writable database at `path`. If another writer holds the lock the error code is CX_ERR_DATABASE_LOCK
 *  (unless cx_db_retry_lock is given, which waits for the lock). Release with cx_writable_database_free. */
cx_writable_database *cx_writable_database_open(const char *path, int flags, cx_error **err) CX_NOEXCEPT;

/** Closes the database if it is still open, releasing the write lock even when a term generator still refers
 *  to it, then releases the handle. Closing commits pending changes and ignores any error while doing so (an
 *  open transaction is cancelled; a failed commit discards the database, see cx_writable_database_discard):
 *  commit explicitly first. A database a failed write discarded commits nothing. Accepts NULL. */
void cx_writable_database_free(cx_writable_database *db) CX_NOEXCEPT;

/** Closes the database without committing anything, releasing the write lock; never fails. Every later call
 *  fails with CX_ERR_DATABASE_CLOSED; the handle must still be freed. Accepts NULL and a closed handle.
 *
 *  Every call through a writable database that fails on the disk or the connection (codes CX_ERR_DATABASE,
 *  CX_ERR_DATABASE_CORRUPT, CX_ERR_NETWORK, CX_ERR_NETWORK_TIMEOUT, CX_ERR_BAD_ALLOC, ...: a full disk, an I/O
 *  error, a lost server) discards the database this way before returning: after such a failure Xapian promises
 *  only that each operation was fully done or not at all, and committing again on the same object has damaged
 *  databases. Open it again to continue from its last commit (cx_writable_database_is_discarded says so). */
void cx_writable_database_discard(cx_writable_database *db) CX_NOEXCEPT;

/** Whether a failed write discarded the database (cx_writable_database_discard). */
bool cx_writable_database_is_discarded(const cx_writable_database *db) CX_NOEXCEPT;

/** Closes the database and releases the write lock, committing pending changes (an open transaction is
 *  cancelled). Later calls on the handle fail with CX_ERR_DATABASE_CLOSED; it must still be freed. When the
 *  commit fails on the disk, the database is discarded (cx_writable_database_discard) and the error returned. */
bool cx_writable_database_close(cx_writable_database *db, cx_error **err) CX_NOEXCEPT;

/** Makes every change since the last commit durable. On failure the error has batch_lost set. */
bool cx_writable_database_commit(cx_writable_database *db, cx_error **err) CX_NOEXCEPT;

/** Commits pending changes, then starts a transaction. With `durable` the transaction's commit is flushed to
 *  disk (begin_transaction(true)); without it the changes can be lost in a crash even after
 *  cx_writable_database_commit_transaction. */
bool cx_writable_database_begin_transaction(cx_writable_database *db, bool durable, cx_error **err) CX_NOEXCEPT;

/** Commits the open transaction. Fails with CX_ERR_INVALID_OPERATION when none is open. */
bool cx_writable_database_commit_transaction(cx_writable_database *db, cx_error **err) CX_NOEXCEPT;

/** Discards every change made in the open transaction. Fails with CX_ERR_INVALID_OPERATION when none is open. */
bool cx_writable_database_cancel_transaction(cx_writable_database *db, cx_error **err) CX_NOEXCEPT;

/** Sets a metadata value, committed atomically with documents. An empty value deletes the key. An empty key
 *  is rejected with CX_ERR_INVALID_ARGUMENT before anything changes (batch_lost not set). */
bool cx_writable_database_set_metadata(cx_writable_database *db, const char *key, size_t key_len,
                                       const char *value, size_t value_len, cx_error **err) CX_NOEXCEPT;

/** Reads a metadata value including uncommitted changes; a missing key reads as the empty string.
 *  `*out` is malloc'd (free with cx_free). */
bool cx_writable_database_get_metadata(cx_writable_database *db, const char *key, size_t key_len,
                                       char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Adds the boolean term `unique_term` to `document` (so later replacements find it), then replaces every
 *  document indexed by that term with `document`, or adds it if there is none. Stores the document id in
 *  `*docid` when `docid` is not NULL. An empty term is rejected before anything changes; any failure inside
 *  Xapian (e.g. a term over 245 bytes) has batch_lost set. */
bool cx_writable_database_replace_document(cx_writable_database *db, const char *unique_term, size_t term_len,
                                           cx_document *document, uint32_t *docid,
                                           cx_error **err) CX_NOEXCEPT;

/** Adds the boolean term `unique_term` to `document` and adds it as a new document, without looking for an
 *  existing one: only for databases known to hold no document with that term (a fresh rebuild), where it saves
 *  replace_document's lookup. Otherwise duplicates pile up. `document` stays owned by the caller. Failures inside
 *  Xapian have batch_lost set. */
bool cx_writable_database_add_document(cx_writable_database *db, const char *unique_term, size_t term_len,
                                       cx_document *document, uint32_t *docid, cx_error **err) CX_NOEXCEPT;

/** Adds the boolean term `unique_term` to `document` and replaces document `docid` with it (adding it under
 *  that id when there is none). For a writer that listed the documents first (cx_writable_database_list_documents):
 *  unlike replacing by term, it makes Xapian look nothing up (each lookup writes out the positions of every
 *  document written since the previous one, scattered over the position table, at a cost per document that
 *  grows with the database). A zero `docid` or an empty term is rejected before anything changes; failures inside
 *  Xapian have batch_lost set. */
bool cx_writable_database_replace_document_id(cx_writable_database *db, uint32_t docid, const char *unique_term,
                                              size_t term_len, cx_document *document, cx_error **err) CX_NOEXCEPT;

/** Lists every document indexed by a term starting with `prefix` (the unique id terms), uncommitted changes
 *  included: one request for the terms, then one per term (over a remote database, a round trip each). `*out`
 *  is malloc'd (free with cx_free) and holds one entry per document and term: the document id and the term's
 *  length, as two native-endian uint32_t, then the term's bytes. An empty prefix is rejected. */
bool cx_writable_database_list_documents(cx_writable_database *db, const char *prefix, size_t prefix_len,
                                         char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Deletes every document indexed by `unique_term`; deleting a missing term is a no-op. An empty term is
 *  rejected before anything changes; any failure inside Xapian has batch_lost set. */
bool cx_writable_database_delete_document(cx_writable_database *db, const char *unique_term, size_t term_len,
                                          cx_error **err) CX_NOEXCEPT;

/** Number of documents, including uncommitted changes. Returns 0 with `*err` set on failure. */
uint32_t cx_writable_database_doc_count(cx_writable_database *db, cx_error **err) CX_NOEXCEPT;

/** Reads the data of the first document indexed by `unique_term`, including uncommitted changes.
 *  `*found` tells whether such a document exists; when it does not, `*out` is an empty malloc'd string.
 *  `*out` is malloc'd (free with cx_free). */
bool cx_writable_database_document_data(cx_writable_database *db, const char *unique_term, size_t term_len,
                                        bool *found, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/* MARK: - Read-only database */

/** Opens the database at `path` read-only. A missing path fails with CX_ERR_DATABASE_NOT_FOUND.
 *  Release with cx_database_free. */
cx_database *cx_database_open(const char *path, cx_error **err) CX_NOEXCEPT;

/** Opens the database at `path` read-only and adds it as a further shard of `db`: searches then cover every
 *  shard (document ids interleave). Metadata is read from the first shard only. */
bool cx_database_add_database(cx_database *db, const char *path, cx_error **err) CX_NOEXCEPT;

/** Releases the handle. Accepts NULL. */
void cx_database_free(cx_database *db) CX_NOEXCEPT;

/** Closes the database; later calls fail with CX_ERR_DATABASE_CLOSED. The handle must still be freed. */
bool cx_database_close(cx_database *db, cx_error **err) CX_NOEXCEPT;

/** Moves to the latest committed revision. `*changed` (when not NULL) is false when nothing changed. */
bool cx_database_reopen(cx_database *db, bool *changed, cx_error **err) CX_NOEXCEPT;

/** Number of documents. Returns 0 with `*err` set on failure. Retries after reopening when the revision
 *  being read is overwritten (as do all reading functions below). */
uint32_t cx_database_doc_count(cx_database *db, cx_error **err) CX_NOEXCEPT;

/** Number of documents indexed by `term`. Returns 0 with `*err` set on failure. */
uint32_t cx_database_term_frequency(cx_database *db, const char *term, size_t term_len, cx_error **err) CX_NOEXCEPT;

/** Reads a metadata value (first shard only); a missing key reads as the empty string. `*out` is malloc'd. */
bool cx_database_get_metadata(cx_database *db, const char *key, size_t key_len,
                              char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Reads the data of the first document indexed by `unique_term`; see cx_writable_database_document_data. */
bool cx_database_document_data(cx_database *db, const char *unique_term, size_t term_len,
                               bool *found, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Reads the first document indexed by `unique_term` into `*out` (a copy holding its terms with wdf and positions,
 *  its values and data, independent of the database; free it with cx_document_free), or sets `*out` to NULL when
 *  no document has the term. */
bool cx_database_document(cx_database *db, const char *unique_term, size_t term_len, cx_document **out,
                          cx_error **err) CX_NOEXCEPT;

/** Every word of the spelling table with its frequency (summed over shards), encoded as cx_spelling_words are in a
 *  document's value slot: for each word, its length as a LEB128 varint, its bytes, its frequency as a varint; in
 *  byte order. `*out` is malloc'd (free with cx_free). */
bool cx_database_spellings(cx_database *db, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Writes to `out` the terms starting with `prefix`, at most `limit` of them (0: all) in term order, each with the
 *  number of documents indexed by it, summed over the shards, in the encoding of cx_database_spellings. `*out` is
 *  malloc'd (free with cx_free). */
bool cx_database_terms(cx_database *db, const char *prefix, size_t prefix_len, uint32_t limit, char **out,
                       size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Writes a compacted copy of all shards of `db` into a new database at `destination` (which must not hold a
 *  database yet). `level` is cx_compact_standard, cx_compact_full or cx_compact_fuller. Document ids are
 *  renumbered; metadata is kept. */
bool cx_database_compact(cx_database *db, const char *destination, unsigned level, cx_error **err) CX_NOEXCEPT;

/* MARK: - Remote databases (xapian-tcpsrv) */

/** Opens the database served by `xapian-tcpsrv` at `host`:`port` read-only (Xapian::Remote::open).
 *  `timeout_ms` bounds every operation on it and `connect_timeout_ms` the connection (0: no limit; Xapian's
 *  defaults are 10000 ms and the operation timeout). A server that refuses the connection or is unreachable fails
 *  with CX_ERR_NETWORK, one past a timeout with CX_ERR_NETWORK_TIMEOUT; the message names `host:port`.
 *  Release with cx_database_free. */
cx_database *cx_database_open_remote(const char *host, unsigned port, unsigned timeout_ms,
                                     unsigned connect_timeout_ms, cx_error **err) CX_NOEXCEPT;

/** Adds the databases `other` views as further shards of `db` (sharing the open connections or files; `other`
 *  stays owned by the caller and usable). */
bool cx_database_add(cx_database *db, const cx_database *other, cx_error **err) CX_NOEXCEPT;

/** Opens a remote database as cx_database_open_remote does and adds it as a further shard of `db`. */
bool cx_database_add_remote(cx_database *db, const char *host, unsigned port, unsigned timeout_ms,
                            unsigned connect_timeout_ms, cx_error **err) CX_NOEXCEPT;

/** Opens the database served by `xapian-tcpsrv --writable` at `host`:`port` for writing
 *  (Xapian::Remote::open_writable); the server creates it when missing. `flags` is 0 or cx_db_retry_lock.
 *  Timeouts and errors as for cx_database_open_remote; a server whose database another client writes fails with
 *  CX_ERR_DATABASE_LOCK. Writes go to the server as they are made; a write or commit that fails over the network
 *  has batch_lost set. Release with cx_writable_database_free. */
cx_writable_database *cx_writable_database_open_remote(const char *host, unsigned port, unsigned timeout_ms,
                                                       unsigned connect_timeout_ms, int flags,
                                                       cx_error **err) CX_NOEXCEPT;

/** The database's UUID (its identity, which a copy or a re-created database does not share), as text; empty
 *  when the database has none (several shards). `*out` is malloc'd (free with cx_free). */
bool cx_database_get_uuid(cx_database *db, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** The UUID of a writable database, as cx_database_get_uuid. */
bool cx_writable_database_get_uuid(cx_writable_database *db, char **out, size_t *out_len,
                                   cx_error **err) CX_NOEXCEPT;

/** The `spelling_slot` of cx_writable_database_sweep_prefix for documents that keep no record of spelling words. */
#define CX_NO_SPELLING_RECORD 0xFFFFFFFFu

/** Deletes every document indexed by a term starting with `prefix`, except those indexed by `keep` (which starts
 *  with `prefix`): the sweep after a rebuild that tagged each document it wrote with `keep`. The terms are listed
 *  first, then deleted; `*swept` (when not NULL) receives how many terms were swept. When `spelling_slot` is not
 *  CX_NO_SPELLING_RECORD, the spelling words each swept document recorded in that value slot (see
 *  cx_writable_database_write_document_spelling) are first taken out of the spelling table, as
 *  cx_writable_database_delete_document_spelling does for one document. An empty prefix or a `keep` without the
 *  prefix is rejected before anything changes; failures inside Xapian have batch_lost set. */
bool cx_writable_database_sweep_prefix(cx_writable_database *db, const char *prefix, size_t prefix_len,
                                       const char *keep, size_t keep_len, uint32_t spelling_slot, uint32_t *swept,
                                       cx_error **err) CX_NOEXCEPT;

/* MARK: - Documents */

/** Creates an empty document. Release with cx_document_free. */
cx_document *cx_document_new(cx_error **err) CX_NOEXCEPT;

/** Releases the handle. Accepts NULL. */
void cx_document_free(cx_document *document) CX_NOEXCEPT;

/** Sets the document data (opaque bytes returned with search results). */
bool cx_document_set_data(cx_document *document, const char *data, size_t data_len, cx_error **err) CX_NOEXCEPT;

/** Reads the document data. `*out` is malloc'd (free with cx_free). */
bool cx_document_get_data(const cx_document *document, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Adds a term without position that does not contribute to the weight (for filters and ids). An empty term
 *  is rejected; an over-long term (over 245 bytes) is only rejected when the document is written. */
bool cx_document_add_boolean_term(cx_document *document, const char *term, size_t term_len, cx_error **err) CX_NOEXCEPT;

/** Adds a term without position, raising its within-document frequency by `wdf_increment`. */
bool cx_document_add_term(cx_document *document, const char *term, size_t term_len, uint32_t wdf_increment,
                          cx_error **err) CX_NOEXCEPT;

/** Stores raw bytes in value slot `slot` (an empty value clears the slot). */
bool cx_document_set_value(cx_document *document, uint32_t slot, const char *value, size_t value_len,
                           cx_error **err) CX_NOEXCEPT;

/** Stores `number` in value slot `slot` encoded with sortable_serialise, so sorting and number ranges work. */
bool cx_document_set_value_number(cx_document *document, uint32_t slot, double number, cx_error **err) CX_NOEXCEPT;

/** Reads value slot `slot` (empty when unset). `*out` is malloc'd (free with cx_free). */
bool cx_document_get_value(const cx_document *document, uint32_t slot, char **out, size_t *out_len,
                           cx_error **err) CX_NOEXCEPT;

/** Number of distinct terms in the document. */
uint32_t cx_document_term_count(const cx_document *document, cx_error **err) CX_NOEXCEPT;

/** The document's terms in term order, copied to `*out` (free with cx_free): for each term, its byte length,
 *  its bytes, its wdf, its number of positions and each position, every number 4 bytes little-endian. */
bool cx_document_terms(const cx_document *document, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/* MARK: - Stop words */

/** Creates an empty stop word list. Release with cx_stopper_free. */
cx_stopper *cx_stopper_new(cx_error **err) CX_NOEXCEPT;

/** Creates a list holding the shim's built-in English stop words ("a", "the", "and", ...). */
cx_stopper *cx_stopper_new_english(cx_error **err) CX_NOEXCEPT;

/** Adds one word (compared after lower-casing by the term generator / query parser, so give it lower case). */
bool cx_stopper_add(cx_stopper *stopper, const char *word, size_t word_len, cx_error **err) CX_NOEXCEPT;

/** True when `word` is in the list. */
bool cx_stopper_contains(const cx_stopper *stopper, const char *word, size_t word_len) CX_NOEXCEPT;

/** Releases the handle. Term generators and query parsers keep their own copy. Accepts NULL. */
void cx_stopper_free(cx_stopper *stopper) CX_NOEXCEPT;

/* MARK: - Term generator */

/** Creates a term generator without stemming or stop words. Release with cx_term_generator_free. */
cx_term_generator *cx_term_generator_new(cx_error **err) CX_NOEXCEPT;

/** Releases the handle. Accepts NULL. */
void cx_term_generator_free(cx_term_generator *generator) CX_NOEXCEPT;

/** Sets the stemmer by language name ("english", "en", "german", ...; NULL, "" or "none" for none).
 *  An unknown language fails with CX_ERR_INVALID_ARGUMENT. */
bool cx_term_generator_set_stemmer(cx_term_generator *generator, const char *language, cx_error **err) CX_NOEXCEPT;

/** Sets the stemmer as cx_term_generator_set_stemmer does, remembering the stems of up to `capacity` words (0: none),
 *  as cx_stemmer_new's does: the terms are the same, stemming a word met before costs a lookup. */
bool cx_term_generator_set_remembering_stemmer(cx_term_generator *generator, const char *language, size_t capacity,
                                              cx_error **err) CX_NOEXCEPT;

/** Uses a copy of `stopper`'s words (NULL: no stop words). */
bool cx_term_generator_set_stopper(cx_term_generator *generator, const cx_stopper *stopper, cx_error **err) CX_NOEXCEPT;

/** Records spelling data for the words indexed from now on in `db` (FLAG_SPELLING), or stops doing so when
 *  `db` is NULL. The generator keeps the database alive but does not keep it open: once it is closed, indexing
 *  fails with CX_ERR_DATABASE_CLOSED. */
bool cx_term_generator_set_spelling_database(cx_term_generator *generator, cx_writable_database *db,
                                             cx_error **err) CX_NOEXCEPT;

/** Splits spans of CJK characters (Chinese, Japanese, Korean: written without spaces between words) into
 *  unigrams and bigrams (FLAG_CJK_NGRAM), or, when `enabled` is false, indexes such a span as one word, as Xapian
 *  does by default. Queries need the query parser's cx_qp_flag_cjk_ngram to match such text. */
bool cx_term_generator_set_cjk_ngrams(cx_term_generator *generator, bool enabled, cx_error **err) CX_NOEXCEPT;

/** Makes `document` the target of the next index_text calls and resets the term position to 0. The generator
 *  shares the document: terms added through it appear in `document`. */
bool cx_term_generator_set_document(cx_term_generator *generator, cx_document *document, cx_error **err) CX_NOEXCEPT;

/** Indexes UTF-8 `text` into the current document: each word's wdf is raised by `wdf_increment` (its weight),
 *  each term gets `prefix` (may be empty), and with `with_positions` positions are stored for phrase search. */
bool cx_term_generator_index_text(cx_term_generator *generator, const char *text, size_t text_len,
                                  uint32_t wdf_increment, const char *prefix, size_t prefix_len,
                                  bool with_positions, cx_error **err) CX_NOEXCEPT;

/** Indexes UTF-8 `text` as one field into the current document, exactly as cx_term_generator_index_text without a
 *  prefix (each word's wdf raised by `wdf_increment`, not 0) followed, when `prefix` is not empty, by
 *  cx_term_generator_index_text with `prefix` and a wdf increment of 1, would; with a prefix, the text is tokenised
 *  and stemmed once for both copies. With `words` (may be NULL), counts into it each unprefixed word FLAG_SPELLING would have added to the
 *  spelling table (once per occurrence), without writing any database. */
bool cx_term_generator_index_field(cx_term_generator *generator, const char *text, size_t text_len,
                                   uint32_t wdf_increment, const char *prefix, size_t prefix_len, bool with_positions,
                                   cx_spelling_words *words, cx_error **err) CX_NOEXCEPT;

/** Advances the term position by `delta` so phrases do not match across separately indexed fields. */
bool cx_term_generator_increase_termpos(cx_term_generator *generator, uint32_t delta, cx_error **err) CX_NOEXCEPT;

/** Writes the current term position (that of the last word indexed) to `out`. */
bool cx_term_generator_get_termpos(cx_term_generator *generator, uint32_t *out, cx_error **err) CX_NOEXCEPT;

/** Advances the term position by at least `gap`, to the next multiple of `alignment` (0 or 1: by `gap` exactly),
 *  so that the next field starts at a position that does not move when an earlier field grows or shrinks a little.
 *  Past the largest term position, advances by `gap` as cx_term_generator_increase_termpos does. */
bool cx_term_generator_align_termpos(cx_term_generator *generator, uint32_t gap, uint32_t alignment,
                                     cx_error **err) CX_NOEXCEPT;

/* MARK: - Spelling words kept with each document */

/** Creates an empty set of spelling words. Release with cx_spelling_words_free. */
cx_spelling_words *cx_spelling_words_new(cx_error **err) CX_NOEXCEPT;

/** Releases the handle. Accepts NULL. */
void cx_spelling_words_free(cx_spelling_words *words) CX_NOEXCEPT;

/** Empties `words`, for the next document. */
bool cx_spelling_words_clear(cx_spelling_words *words, cx_error **err) CX_NOEXCEPT;

/** Writes `document` as cx_writable_database_replace_document does (or, with `fresh`, as
 *  cx_writable_database_add_document does), keeping in its value `slot` a record of what it fed to the spelling
 *  table (`words`, as counts of the document's own unprefixed terms: the words are read back from the stored
 *  document's term list) and a digest of everything else it holds, and brings the spelling table in line: the words
 *  recorded by the replaced document are taken out and `words` put in, writing only each word's difference. When
 *  the replaced document's record shows the same digest and words, nothing is written and `*written` (when not
 *  NULL) is false. A replaced document without a record has nothing taken out. Failures inside Xapian have
 *  batch_lost set. */
bool cx_writable_database_write_document_spelling(cx_writable_database *db, const char *unique_term, size_t term_len,
                                                  cx_document *document, uint32_t slot,
                                                  const cx_spelling_words *words, bool fresh, bool *written,
                                                  cx_error **err) CX_NOEXCEPT;

/** Writes the values and data of `rest` over those of the document indexed by `unique_term`, keeping its terms:
 *  for a record whose change touched no column that makes terms (the caller knows from history). Only a document
 *  written by cx_writable_database_write_document_spelling of this version can be rewritten so (its record in value
 *  `slot` holds the digest of its terms); otherwise nothing is written and `*applied` is false: write the whole
 *  document instead. `*written` is false when the values and data were already these. The record keeps the
 *  document's spelling words. Failures inside Xapian have batch_lost set. */
bool cx_writable_database_write_document_rest(cx_writable_database *db, const char *unique_term, size_t term_len,
                                              cx_document *rest, uint32_t slot, bool *applied, bool *written,
                                              cx_error **err) CX_NOEXCEPT;

/** Deletes as cx_writable_database_delete_document does, first taking the words recorded in the document's value
 *  `slot` out of the spelling table. Failures inside Xapian have batch_lost set. */
bool cx_writable_database_delete_document_spelling(cx_writable_database *db, const char *unique_term,
                                                   size_t term_len, uint32_t slot, cx_error **err) CX_NOEXCEPT;

/* MARK: - Queries */

/** A query matching documents indexed by `term` (empty term: every document). Release with cx_query_free. */
cx_query *cx_query_new_term(const char *term, size_t term_len, cx_error **err) CX_NOEXCEPT;

/** A query matching documents indexed by any term starting with `stem` (OP_WILDCARD, its terms OR-ed). Expanding
 *  to more than `max_expansion` terms (0: no limit) makes the search fail with CX_ERR_WILDCARD. Release with
 *  cx_query_free. */
cx_query *cx_query_new_wildcard(const char *stem, size_t stem_len, uint32_t max_expansion, cx_error **err) CX_NOEXCEPT;

/** A query matching every document. */
cx_query *cx_query_new_match_all(cx_error **err) CX_NOEXCEPT;

/** A query matching no document. */
cx_query *cx_query_new_match_nothing(cx_error **err) CX_NOEXCEPT;

/** A query on value slot `slot`: values between `lower` and `upper` inclusive, compared as byte strings.
 *  Pass NULL for an open end (not both). Use cx_sortable_serialise to build bounds for numbers. */
cx_query *cx_query_new_value_range(uint32_t slot, const char *lower, size_t lower_len,
                                   const char *upper, size_t upper_len, cx_error **err) CX_NOEXCEPT;

/** Combines `count` queries with `op` (cx_op_and, cx_op_or, cx_op_filter, cx_op_and_not, ...). With cx_op_filter
 *  documents must match all queries but only the first one gives weight; with cx_op_and_not they must match
 *  the first and none of the others. `count` must be at least 1. */
cx_query *cx_query_combine(int op, const cx_query *const *queries, size_t count, cx_error **err) CX_NOEXCEPT;

/** `query`, with documents where consecutive query words appear near each other weighted up: each pair of
 *  consecutive free-text words of `words` (terms starting with a lower-case letter, a digit or a non-ASCII byte,
 *  in query order; parse the same text without stemming to get them, since stemmed terms carry no positions)
 *  becomes an OP_NEAR of `window` positions, scaled by `weight` / (number of pairs) and added to `query` with
 *  OP_AND_MAYBE (one after the other), so the matches stay those of `query`. With fewer than two words, a copy of
 *  `query`. */
cx_query *cx_query_with_proximity(const cx_query *query, const cx_query *words, uint32_t window, double weight,
                                  cx_error **err) CX_NOEXCEPT;

/** True when the query matches nothing because it is empty (e.g. parsed from blank text). */
bool cx_query_is_empty(const cx_query *query) CX_NOEXCEPT;

/** Xapian's description of the query, for logs and tests. `*out` is malloc'd (free with cx_free). */
bool cx_query_description(const cx_query *query, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Releases the handle. Accepts NULL. */
void cx_query_free(cx_query *query) CX_NOEXCEPT;

/* MARK: - Query parser */

/** Creates a parser (default operator OR, no stemming, no stop words). Release with cx_query_parser_free. */
cx_query_parser *cx_query_parser_new(cx_error **err) CX_NOEXCEPT;

/** Releases the handle. Accepts NULL. */
void cx_query_parser_free(cx_query_parser *parser) CX_NOEXCEPT;

/** Sets the stemmer (same names as cx_term_generator_set_stemmer); use the one used for indexing. */
bool cx_query_parser_set_stemmer(cx_query_parser *parser, const char *language, cx_error **err) CX_NOEXCEPT;

/** Uses a copy of `stopper`'s words (NULL: no stop words). */
bool cx_query_parser_set_stopper(cx_query_parser *parser, const cx_stopper *stopper, cx_error **err) CX_NOEXCEPT;

/** Sets the operator joining plain words: cx_op_and or cx_op_or (others Xapian rejects fail). */
bool cx_query_parser_set_default_op(cx_query_parser *parser, int op, cx_error **err) CX_NOEXCEPT;

/** Sets the database used for spelling correction and wildcard expansion. The parser keeps it alive. */
bool cx_query_parser_set_database(cx_query_parser *parser, cx_database *db, cx_error **err) CX_NOEXCEPT;

/** Maps `field:` in query text to free-text terms with `prefix`. Calling it with an empty field sets the
 *  default prefixes for unqualified words. */
bool cx_query_parser_add_prefix(cx_query_parser *parser, const char *field, size_t field_len,
                                const char *prefix, size_t prefix_len, cx_error **err) CX_NOEXCEPT;

/** Maps `field:value` in query text to a filter on boolean term `prefix` + value, and `field:val*` to a filter on
 *  every such term starting with `val` (bounded by cx_query_parser_set_max_wildcard_expansion). With `exclusive`,
 *  several values of the same field are OR-ed (and different fields AND-ed); otherwise each filter is AND-ed.
 *  Using one field both as free-text and boolean prefix fails with CX_ERR_INVALID_OPERATION. */
bool cx_query_parser_add_boolean_prefix(cx_query_parser *parser, const char *field, size_t field_len,
                                        const char *prefix, size_t prefix_len, bool exclusive,
                                        cx_error **err) CX_NOEXCEPT;

/** Accepts `<prefix>A..B` (either end may be left out) as a range over numbers stored in `slot` with
 *  sortable_serialise. When `prefix` is `field:`, a single value `field:V` also matches the documents whose number
 *  is V, and a value that is not a number is a CX_ERR_QUERY_PARSER error naming the field. */
bool cx_query_parser_add_number_range(cx_query_parser *parser, uint32_t slot, const char *prefix,
                                      size_t prefix_len, cx_error **err) CX_NOEXCEPT;

/** Accepts `<prefix>A..B` where A and B are UTC dates YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z]
 *  (the day must exist, hours 00-23, minutes and seconds 00-59, years 1583-9999: the rule Spotlite's Swift side
 *  applies to stored dates) (either end may be left out) as a range over Unix seconds stored in `slot` with sortable_serialise. A range
 *  starts at the first second of A and ends at the last second of B (so 2024..2024 is the whole year). When
 *  `prefix` is `field:`, a single date `field:D` matches the whole period D names (`at:2024` the year,
 *  `at:2024-01-05` the day), and a value that is not a date is a CX_ERR_QUERY_PARSER error naming the field.
 *  With a non-empty prefix, a malformed date is a CX_ERR_QUERY_PARSER error naming it; with an empty prefix
 *  the range is left to other range processors. */
bool cx_query_parser_add_date_range(cx_query_parser *parser, uint32_t slot, const char *prefix,
                                    size_t prefix_len, cx_error **err) CX_NOEXCEPT;

/** Sets how query words are stemmed: one of the cx_stem_* constants (default cx_stem_some). Others fail with
 *  CX_ERR_INVALID_ARGUMENT. */
bool cx_query_parser_set_stemming_strategy(cx_query_parser *parser, int strategy, cx_error **err) CX_NOEXCEPT;

/** Limits how many terms a wildcard or partial word may expand to; going over makes the search fail with
 *  CX_ERR_WILDCARD. 0 means unlimited (Xapian's default). */
bool cx_query_parser_set_max_wildcard_expansion(cx_query_parser *parser, uint32_t limit, cx_error **err) CX_NOEXCEPT;

/** Parses `text` with `flags` (cx_qp_flag_*), reopening and retrying like cx_database_search when the parser's
 *  database changes while spelling data is read. Malformed text fails with CX_ERR_QUERY_PARSER. Blank text gives
 *  an empty query (see cx_query_is_empty). Release the result with cx_query_free. */
cx_query *cx_query_parser_parse(cx_query_parser *parser, const char *text, size_t text_len, unsigned flags,
                                cx_error **err) CX_NOEXCEPT;

/** Parses `text` as cx_query_parser_parse does, and sets `*read_as_words` when Xapian could not read its syntax
 *  and read it as plain words instead (Xapian 1.4 does so silently on a syntax error its grammar has no message
 *  for: brackets holding only excluded words, `vim NEAR`), so that the caller can refuse the text rather than
 *  search its operators as words. Costs a second parse (as plain words). */
cx_query *cx_query_parser_parse_checked(cx_query_parser *parser, const char *text, size_t text_len, unsigned flags,
                                        bool *read_as_words, cx_error **err) CX_NOEXCEPT;

/** The spelling-corrected form of the last parsed text (needs cx_qp_flag_spelling_correction, a database and
 *  spelling data); empty when nothing was corrected. `*out` is malloc'd (free with cx_free). */
bool cx_query_parser_corrected_query(const cx_query_parser *parser, char **out, size_t *out_len,
                                     cx_error **err) CX_NOEXCEPT;

/* MARK: - Searching */

/** Result ordering. */
typedef enum cx_sort_order {
    CX_SORT_RELEVANCE = 0,         /**< Best BM25 weight first. */
    CX_SORT_VALUE_ASCENDING = 1,   /**< By the bytes of value slot `sort_slot`, smallest first. */
    CX_SORT_VALUE_DESCENDING = 2   /**< By the bytes of value slot `sort_slot`, largest first. */
} cx_sort_order;

/** BM25 weighting parameters (see Xapian::BM25Weight). */
typedef struct cx_bm25_params {
    double k1, k2, k3, b, min_normlen;
} cx_bm25_params;

/** Xapian's default BM25 parameters. */
cx_bm25_params cx_bm25_default_params(void) CX_NOEXCEPT;

/** Pseudo-relevance feedback: the best documents of the query are taken as relevant, Xapian picks the terms
 *  that best tell them apart from the rest (Enquire::get_eset over an RSet of them), and the query is searched
 *  again as `query AND_MAYBE (expansion terms, scaled)`: the matches stay exactly those of the query (filters,
 *  NOT and required words keep their meaning); only their order changes. Only free-text terms are added: terms
 *  starting with a lower-case letter, a digit or a non-ASCII byte, and stemmed terms (`Z` then such a byte);
 *  terms with an upper-case prefix (field copies, filters, ids) never are. Zero-initialise, then set fields. */
typedef struct cx_expansion_options {
    uint32_t documents;            /**< Best documents taken as relevant (at least 1). */
    uint32_t terms;                /**< At most this many terms are added (at least 1). */
    /** Weight of the added terms as a whole, relative to the original query's: each added term is scaled by
     *  weight × (free-text terms of the query) / (terms added), so 1 gives both halves the same say. */
    double weight;
    /** Only stemmed terms are added, without their unstemmed twins. */
    bool stemmed_only;
    /** Queries with fewer distinct free-text terms than this run unexpanded (0 or 1: every query is expanded). */
    uint32_t minimum_terms;
    /** When not NULL, the documents taken as relevant are the best of this query rather than of the searched one
     *  (e.g. the same words and filters without a costly proximity boost), and the query's free-text terms (for
     *  `minimum_terms` and the weight) are counted in it. */
    const struct cx_query *feedback_query;
} cx_expansion_options;

/** A proximity boost applied as a re-ranking of the best matches: the query runs as given, then each of its best
 *  `depth` matches gains, for each pair of consecutive words of `words` (see cx_query_with_proximity) found within
 *  `window` positions of each other, `weight` / (number of pairs) times the BM25 weights of the two words in it (what
 *  the pair's OP_NEAR subquery would add, computed from the whole database's statistics), and these matches are put
 *  in the order of their new weight (ties keep the query's order); matches beyond `depth` keep the query's order and
 *  weight and follow them. Matches tied with the first one beyond `depth` are not re-ranked either, so that a sharded
 *  database and a single one re-rank the same matches. So the positions of `depth` documents at most are read,
 *  however many documents hold the words; and of these, only those whose boost could change the page asked for (a
 *  boost is bounded by the words' BM25 weights at the shortest length: a match whose bound cannot lift it into the page
 *  keeps its weight, and its positions are not read; the page is the same as when every match is weighed again).
 *  Applies to relevance order only. Zero-initialise, then set fields. */
typedef struct cx_proximity_options {
    const struct cx_query *words;  /**< The query's words, unstemmed (their positions are read). */
    uint32_t window;               /**< Positions a pair may span (at least 2). */
    double weight;                 /**< Boost of a document where every pair is near (finite, above 0). */
    uint32_t depth;                /**< How many of the best matches are re-ranked (at least 1). */
    /** Every document holds its unique id term in value slot `id_slot`. Over remote databases the boost is then
     *  worked out by the servers: one more match, restricted to the candidates by those terms (each pair an
     *  OP_NEAR scaled by its share, BM25 with k2 = k3 = 0), instead of each candidate's positions read from here a
     *  round trip at a time; the page is the same, weights within rounding. A candidate without the value falls
     *  back to reading positions. Ignored over local databases, where reading positions costs less. */
    bool has_id_slot;
    uint32_t id_slot;
} cx_proximity_options;

/** What to search and how. Zero-initialise, then set fields. */
typedef struct cx_search_options {
    uint32_t offset;               /**< Number of best results to skip. */
    uint32_t limit;                /**< Maximum number of results. */
    uint32_t check_at_least;       /**< Look at least at this many matches (exact facet counts need the doc count). */
    cx_sort_order sort;
    uint32_t sort_slot;            /**< Value slot for value sorting. */
    const cx_bm25_params *bm25;    /**< NULL: Xapian's defaults. */
    const uint32_t *facet_slots;   /**< Value slots whose values are counted over the matches (may be NULL). */
    size_t facet_slot_count;
    uint32_t max_retries;          /**< Reopen-and-retry attempts after DatabaseModifiedError; 0 means 5. */
    bool no_retry;                 /**< Fail at once with CX_ERR_DATABASE_MODIFIED instead (max_retries ignored). */
    double time_limit;             /**< Seconds the match may run; past them the search fails with CX_ERR_TIME_LIMIT
                                        (checked every few candidates, so a little later). 0: no limit. The
                                        expansion's feedback pass counts against it too. Not applied over remote
                                        databases, which refuse match deciders: their operation timeout bounds it. */
    const cx_expansion_options *expansion; /**< NULL: the query as given. */
    /** Record, for each hit, the query terms it matched and what each term added to its weight (for tuning and
     *  `--explain`; costs a small search per hit and term). Terms found only under OP_NEAR (the proximity boost)
     *  are left out: the rest of the hit's weight is theirs. */
    bool explain;
    /** NULL: no proximity boost. Otherwise the best matches are re-ranked with it (relevance order only; ignored
     *  when sorting by value). */
    const cx_proximity_options *proximity;
} cx_search_options;

/** One result. */
typedef struct cx_hit {
    uint32_t docid;                /**< Document id (renumbered by compaction; shards interleave). */
    uint32_t rank;                 /**< 0-based position in the whole result list. */
    double weight;
    int percent;
} cx_hit;

/** Runs `query` over `db`. If the database changes underneath (DatabaseModifiedError), reopens `db` and
 *  retries up to `max_retries` times (unless `no_retry`). When the error is reported instead, `db` is reopened
 *  before its next read: Xapian 1.4 left alone would answer later searches with no matches and no error. Hit data and facet counts are read before returning. Release the
 *  result with cx_mset_free. */
cx_mset *cx_database_search(cx_database *db, const cx_query *query, const cx_search_options *options,
                            cx_error **err) CX_NOEXCEPT;

/** Releases the handle. Accepts NULL. */
void cx_mset_free(cx_mset *mset) CX_NOEXCEPT;

/** Number of hits in this page. */
size_t cx_mset_size(const cx_mset *mset) CX_NOEXCEPT;

/** How many matches the proximity boost weighed again, reading their words' positions: at most its depth, fewer when
 *  the page asked for cannot change with the others (see cx_proximity_options). */
size_t cx_mset_reweighed_documents(const cx_mset *mset) CX_NOEXCEPT;

/** Xapian's estimate of the total number of matches, and its bounds. */
uint32_t cx_mset_matches_estimated(const cx_mset *mset) CX_NOEXCEPT;
uint32_t cx_mset_matches_lower_bound(const cx_mset *mset) CX_NOEXCEPT;
uint32_t cx_mset_matches_upper_bound(const cx_mset *mset) CX_NOEXCEPT;

/** Copies hit `index` (0-based within this page) into `*out`. Out of range fails with CX_ERR_RANGE. */
bool cx_mset_hit(const cx_mset *mset, size_t index, cx_hit *out, cx_error **err) CX_NOEXCEPT;

/** The data of hit `index`. `*out` is malloc'd (free with cx_free). */
bool cx_mset_hit_data(const cx_mset *mset, size_t index, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** The query that ran, as Xapian describes it (after expansion, if any). `*out` is malloc'd (free with cx_free). */
bool cx_mset_query_description(const cx_mset *mset, char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/** Number of terms expansion added (0 without expansion, or when it found none). */
size_t cx_mset_expansion_term_count(const cx_mset *mset) CX_NOEXCEPT;

/** Expansion term `index`, best first: the term (`*out` malloc'd, free with cx_free), Xapian's expansion weight
 *  (`*expand_weight`) and the factor its query weight was scaled by (`*scale`). Either number pointer may be NULL. */
bool cx_mset_expansion_term(const cx_mset *mset, size_t index, char **out, size_t *out_len, double *expand_weight,
                            double *scale, cx_error **err) CX_NOEXCEPT;

/** With `options.explain`: how many query terms hit `hit_index` matched. */
size_t cx_mset_hit_term_count(const cx_mset *mset, size_t hit_index, cx_error **err) CX_NOEXCEPT;

/** With `options.explain`: matched term `term_index` of hit `hit_index` (`*out` malloc'd), its within-document
 *  frequency, and its part of the hit's weight (already scaled for expansion terms). */
bool cx_mset_hit_term(const cx_mset *mset, size_t hit_index, size_t term_index, char **out, size_t *out_len,
                      uint32_t *wdf, double *weight, cx_error **err) CX_NOEXCEPT;

/** Number of distinct values counted for `options.facet_slots[facet_index]`. */
size_t cx_mset_facet_value_count(const cx_mset *mset, size_t facet_index, cx_error **err) CX_NOEXCEPT;

/** Value `value_index` (values sorted by bytes) of facet `facet_index` and how many matches have it.
 *  `*out` is malloc'd (free with cx_free). */
bool cx_mset_facet_value(const cx_mset *mset, size_t facet_index, size_t value_index,
                         char **out, size_t *out_len, uint32_t *frequency, cx_error **err) CX_NOEXCEPT;

/** How to build a snippet. Zero-initialise, then set fields. */
typedef struct cx_snippet_options {
    size_t length;                 /**< Bytes of text to aim for (0 means 200). */
    const char *stem_language;     /**< Stemmer used by the query (NULL/""/"none": none). */
    const char *highlight_start;   /**< Inserted raw before each match (may be NULL when its length is 0). */
    size_t highlight_start_len;
    const char *highlight_end;     /**< Inserted raw after each match. */
    size_t highlight_end_len;
    const char *omit;              /**< Inserted where text was cut off. */
    size_t omit_len;
    unsigned flags;                /**< cx_snippet_* flags; 0 means background model + exhaustive. */
    /** When not NULL, stems the text's words instead of a stemmer for `stem_language` (it must be the same
     *  language): one kept from snippet to snippet and search to search remembers its stems. */
    cx_stemmer *stemmer;
} cx_snippet_options;

/** A stemmer for `language` (NULL/""/"none": none) that remembers up to `capacity` words and their stems, for
 *  snippets: a snippet stems every word of its text, and the words of a collection's texts recur. Stems are the
 *  language's own; only the time changes. Not thread-safe: one thread at a time. Free with cx_stemmer_free. */
cx_stemmer *cx_stemmer_new(const char *language, size_t capacity, cx_error **err) CX_NOEXCEPT;

/** The stem of `word` (`*out` malloc'd, free with cx_free), as the stemmer's language gives it. */
bool cx_stemmer_stem(cx_stemmer *stemmer, const char *word, size_t word_len, char **out, size_t *out_len,
                     cx_error **err) CX_NOEXCEPT;

void cx_stemmer_free(cx_stemmer *stemmer) CX_NOEXCEPT;

/** Selects the part of `text` that best matches the query of this search, HTML-escapes it and marks the
 *  matching words. `*out` is malloc'd (free with cx_free). */
bool cx_mset_snippet(const cx_mset *mset, const char *text, size_t text_len, const cx_snippet_options *options,
                     char **out, size_t *out_len, cx_error **err) CX_NOEXCEPT;

/* MARK: - Search as you type */

/** Makes the last word of a text parsed with cx_qp_flag_partial match at most `limit` words starting with it, the
 *  most frequent ones (1 to 10,000): a word being typed (`c`) starts too many words to refuse the search, as a
 *  wildcard past cx_query_parser_set_max_wildcard_expansion does. The word itself also matches as typed. */
bool cx_query_parser_set_max_partial_expansion(cx_query_parser *parser, uint32_t limit, cx_error **err) CX_NOEXCEPT;

#ifdef __cplusplus
}
#endif
#endif
