// Shared machinery of the shim's .cpp files: handle layouts, the exception firewall, byte-string helpers.
// Not part of the public header: Swift never sees C++.
#ifndef CX_INTERNAL_HPP
#define CX_INTERNAL_HPP

#include "CXapian.h"

#include <xapian.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

static_assert(sizeof(Xapian::docid) == sizeof(uint32_t), "the header promises 32-bit document ids");
static_assert(sizeof(Xapian::valueno) == sizeof(uint32_t), "the header promises 32-bit value slots");
static_assert(sizeof(Xapian::doccount) == sizeof(uint32_t), "the header promises 32-bit document counts");
static_assert(sizeof(Xapian::termcount) == sizeof(uint32_t), "the header promises 32-bit term counts");

struct cx_error {
    cx_error_code code;
    char *type;
    char *message;
    size_t message_len;
    bool batch_lost;
    // Preallocated errors used when memory runs out while reporting an error must not be freed.
    bool is_static;
};

// `closed` is tracked by the shim because after close() Xapian 1.4 silently accepts commit() and reports
// zero documents instead of raising DatabaseClosedError. `discarded` says why it was closed: a write failed on
// the disk or the connection, and the handle was closed without committing (cx::write_guard).
struct cx_writable_database {
    Xapian::WritableDatabase db;
    bool closed = false;
    bool discarded = false;
};

struct cx_database {
    Xapian::Database db;
    bool closed = false;
    // Whether a shard is a remote database, which refuses match deciders (the search deadline among them).
    bool has_remote = false;
    // Set after a DatabaseModifiedError until reopen() succeeds: Xapian 1.4 does not recover by itself, and a
    // search after further commits then silently finds nothing. Shared with query parsers using this database,
    // since Xapian::Database copies share the state that needs reopening.
    std::shared_ptr<bool> needs_reopen = std::make_shared<bool>(false);
    // Each database searched together, in the order added (sharing `db`'s connections and files), while each holds
    // one shard: over remote shards every read is a round trip, and the shards' reads run at once on these handles,
    // one thread per shard (cx::parallel_shards). A database added that holds several shards (a stub file) is one
    // entry, so the entries no longer match db's shards one to one and the reads follow each other as before.
    std::vector<Xapian::Database> shards;
};

struct cx_document {
    Xapian::Document doc;
};

struct cx_term_generator {
    Xapian::TermGenerator generator;
    // Where cx_term_generator_index_field tokenises a field once before copying its terms: kept to reuse its memory.
    Xapian::Document scratch;
};

struct cx_spelling_words {
    // Sorted, so that the record of a document is the same bytes however its words were met.
    std::map<std::string, Xapian::termcount> counts;
};

struct cx_stopper {
    std::vector<std::string> words;
};

struct cx_query {
    Xapian::Query query;
};

struct cx_query_parser {
    Xapian::QueryParser parser;
    // The database given to set_database (spelling, wildcards), to reopen when parsing hits a newer revision.
    Xapian::Database db;
    std::shared_ptr<bool> db_needs_reopen = std::make_shared<bool>(false);
    // The wildcard limit (0: none), shared with the keyword processors, which expand `field:val*` themselves.
    std::shared_ptr<Xapian::termcount> max_expansion = std::make_shared<Xapian::termcount>(0);
};

struct cx_stemmer {
    // Wraps a remembering StemImplementation (CXStemmer.cpp), so Xapian calls it wherever it takes a Stem.
    Xapian::Stem stem;
};

struct cx_mset_facet {
    std::vector<std::pair<std::string, Xapian::doccount>> values;
};

struct cx_expansion_term {
    std::string term;
    double expand_weight;
    double scale;
};

struct cx_hit_term {
    std::string term;
    Xapian::termcount wdf;
    double weight;
};

struct cx_mset {
    // Kept alive because MSet::snippet() needs the query terms and statistics of this search.
    Xapian::MSet mset;
    // The query that ran, and the proximity boost it ran with (as OP_NEAR pairs in the description): described
    // only when asked (`--explain`), since building and describing it costs about as much as reading a hit.
    Xapian::Query executed;
    bool boosted = false;
    Xapian::Query proximity_words;
    uint32_t proximity_window = 0;
    double proximity_weight = 0;
    // The stemmer of the last snippet, kept for the next: building one per hit cost more than cutting the snippet.
    mutable std::string snippet_language;
    mutable Xapian::Stem snippet_stemmer;
    mutable bool has_snippet_stemmer = false;
    // Matches whose word positions the proximity boost read (cx_mset_reweighed_documents).
    size_t reweighed = 0;
    std::vector<cx_expansion_term> expansion;
    // Filled only when the search was asked to explain its weights: one list per hit.
    std::vector<std::vector<cx_hit_term>> hit_terms;
    std::vector<cx_hit> hits;
    std::vector<std::string> data;
    std::vector<cx_mset_facet> facets;
};

namespace cx {

/// The documents indexed by any term starting with `stem` (its terms OR-ed): `field:val*` in a query, and a keyword
/// filter ending in `*`. More than `max_expansion` such terms (0: no limit) fail the search with a WildcardError.
inline Xapian::Query prefix_wildcard(const std::string &stem, Xapian::termcount max_expansion) {
    return Xapian::Query(Xapian::Query::OP_WILDCARD, stem, max_expansion, Xapian::Query::WILDCARD_LIMIT_ERROR,
                         Xapian::Query::OP_OR);
}

/// Whether `term` is a word indexed without a prefix: TermGenerator lower-cases words, and every prefix (Xapian's
/// conventions and the indexer's) starts with an ASCII capital.
inline bool is_unprefixed_word(const std::string &term) {
    return !term.empty() && !(term[0] >= 'A' && term[0] <= 'Z');
}

/// Thrown by the shim itself for misuse it detects (NULL handles, bad lengths, bad indexes). Reported with
/// Xapian's type names, but never as a lost batch: nothing reached Xapian.
struct misuse {
    cx_error_code code;
    const char *type;
    std::string message;
};

[[noreturn]] void invalid_argument(const std::string &message);
[[noreturn]] void out_of_range(const std::string &message);

/// Stores a new error describing the exception being handled into `*err` (if `err` is not NULL).
/// Must only be called from inside a catch block.
void report_current_exception(cx_error **err, bool batch_lost) noexcept;

/// Runs `body`, turning every exception into a cx_error. Returns `failure` when `body` throws.
/// `batch_lost_on_xapian_error` marks exceptions raised inside Xapian (not the shim's own checks) as having lost
/// the uncommitted batch: Xapian cancels all pending changes when a write fails.
template <typename Result, typename Body>
Result guard(cx_error **err, Result failure, Body &&body, bool batch_lost_on_xapian_error = false) noexcept {
    if (err != nullptr && *err != nullptr) {
        // The caller did not clear an earlier error; refusing keeps it from being leaked or overwritten.
        return failure;
    }
    try {
        return body();
    } catch (...) {
        report_current_exception(err, batch_lost_on_xapian_error);
        return failure;
    }
}

/// Whether an error of this code leaves a writable database in a state no later call may build on: the disk or
/// the connection failed in the middle of a write (ENOSPC, EIO, a lost server), or memory ran out. Xapian
/// promises only that each operation was done or not; committing again on the same object has overwritten
/// blocks the last commit still uses.
bool is_write_failure(cx_error_code code) noexcept;

/// Closes `db` without committing anything (an unflushed transaction is begun, so that close() skips its commit),
/// releasing the write lock; never throws. Later calls fail with DatabaseClosedError.
void discard(cx_writable_database &db) noexcept;

/// `guard` for a write through `db`: a failure of the disk or the connection (is_write_failure) discards the
/// database at once, so that nothing can retry on it; the caller opens it again from its last commit.
template <typename Result, typename Body>
Result write_guard(cx_writable_database *db, cx_error **err, Result failure, Body &&body,
                   bool batch_lost_on_xapian_error = false) noexcept {
    if (err != nullptr && *err != nullptr) return failure;
    cx_error *error = nullptr;
    Result result = guard(&error, failure, std::forward<Body>(body), batch_lost_on_xapian_error);
    if (error == nullptr) return result;
    if (db != nullptr && !db->closed && is_write_failure(error->code)) {
        discard(*db);
        db->discarded = true;
    }
    if (err != nullptr) {
        *err = error;
    } else {
        cx_error_free(error);
    }
    return failure;
}

/// A byte string from a pointer and a length; NULL with length 0 is empty, NULL with a length is misuse.
std::string bytes(const char *pointer, size_t length, const char *what);

/// A non-empty unique id term.
std::string unique_term(const char *term, size_t term_len);

/// A NUL-terminated string that must not be NULL.
std::string c_string(const char *pointer, const char *what);

/// Checks a handle argument.
template <typename Handle>
Handle *require(Handle *handle, const char *what) {
    if (handle == nullptr) invalid_argument(std::string(what) + " is NULL");
    return handle;
}

/// Checks a database handle argument and that it was not closed.
template <typename DatabaseHandle>
DatabaseHandle *require_open(DatabaseHandle *handle) {
    require(handle, "database");
    if (handle->closed) throw Xapian::DatabaseClosedError("the database was closed; open it again to use it");
    return handle;
}

/// `require_open` for a writable database, saying when it was closed by a failed write.
inline cx_writable_database *require_open(cx_writable_database *handle) {
    require(handle, "database");
    if (handle->discarded) {
        throw Xapian::DatabaseClosedError("the database was closed without committing after a write failed; open it "
                                          "again to continue from its last commit");
    }
    if (handle->closed) throw Xapian::DatabaseClosedError("the database was closed; open it again to use it");
    return handle;
}

/// Copies `value` into a malloc'd, NUL-terminated buffer handed to the caller.
void copy_out(const std::string &value, char **out, size_t *out_len);

/// Clears out-parameters so callers never see stale pointers after a failure.
inline void reset_out(char **out, size_t *out_len) noexcept {
    if (out != nullptr) *out = nullptr;
    if (out_len != nullptr) *out_len = 0;
}

/// A stemmer from a language name; NULL, "" and "none" give no stemming.
Xapian::Stem stemmer(const char *language);

/// `stemmer`, remembering the stems of up to `capacity` words (0: none); no stemming stays no stemming.
Xapian::Stem remembering(const Xapian::Stem &stemmer, size_t capacity);

/// A reference-counted stopper Xapian deletes when its last user goes away.
const Xapian::Stopper *make_stopper(const cx_stopper *stopper);

/// Runs `read` on `db`, reopening and retrying up to `max_retries` times when the revision being read was
/// overwritten. When retries run out the error is rethrown, and `needs_reopen` makes the next read reopen first.
template <typename Body>
auto read_retrying(Xapian::Database &db, bool &needs_reopen, unsigned max_retries, Body &&read) -> decltype(read()) {
    for (unsigned attempt = 0;; ++attempt) {
        try {
            if (needs_reopen) {
                db.reopen();
                needs_reopen = false;
            }
            return read();
        } catch (const Xapian::DatabaseModifiedError &) {
            needs_reopen = true;
            if (attempt >= max_retries) throw;
        }
    }
}

/// Runs `task(0)` to `task(count - 1)` at once: the first on the calling thread, each other one on a thread of its
/// own (on the calling thread after the first when no thread can be started), and returns when all have ended. The
/// first failure in index order is rethrown on the calling thread. Each task must touch Xapian objects no other task
/// touches.
void in_parallel(size_t count, const std::function<void(size_t)> &task);

/// The handles of `handle`'s shards, one per shard in document id order, when its reads are worth running at once
/// (more than one shard, one of them remote); NULL otherwise.
const std::vector<Xapian::Database> *parallel_shards(const cx_database &handle);

/// Records `added` (one database or several searched together) as further shards of `handle`, after add_database.
void record_shards(cx_database &handle, const std::vector<Xapian::Database> &added);

/// Moves `handle` to the latest committed revision, its remote shards all at once (one round trip in all rather
/// than one per shard); false when nothing changed.
bool reopen(cx_database &handle);

/// `read` of each of `docids` (documents known to exist) in `db`, in order. With `shards` (parallel_shards), the
/// reads of different shards run at once: over remote shards each is a round trip, and each connection answers one
/// request at a time, so a shard's reads follow each other. `read` must only read the document it is given.
std::vector<std::string> documents_read(Xapian::Database &db, const std::vector<Xapian::Database> *shards,
                                        const std::vector<Xapian::docid> &docids,
                                        const std::function<std::string(const Xapian::Document &)> &read);

/// `read_retrying` for a database handle.
template <typename Body>
auto read_retrying(cx_database &handle, unsigned max_retries, Body &&read) -> decltype(read()) {
    for (unsigned attempt = 0;; ++attempt) {
        try {
            if (*handle.needs_reopen) {
                reopen(handle);
                *handle.needs_reopen = false;
            }
            return read();
        } catch (const Xapian::DatabaseModifiedError &) {
            *handle.needs_reopen = true;
            if (attempt >= max_retries) throw;
        }
    }
}

constexpr unsigned default_max_retries = 5;

/// The most matches a search over remote shards may look at and still collapse on the id slot to learn its
/// candidates' id terms with the match (every server then sends that many matches, a few dozen bytes each).
constexpr uint32_t collapsed_matches_limit = 1000;

/// The distinct free-text terms of `words` (starting with a lower-case letter, a digit or a non-ASCII byte), in
/// query order: the words whose consecutive pairs the proximity boost looks for.
std::vector<std::string> proximity_words(const Xapian::Query &words);

/// Refuses a proximity window under 2 positions and a weight that is not a finite number above 0.
void require_valid_proximity(uint32_t window, double weight);

/// `query` with the proximity boost of cx_query_with_proximity (pairs of consecutive free-text words of `words`
/// as OP_NEAR subqueries, chained with OP_AND_MAYBE); `query` itself when `words` has fewer than two. `*pairs`
/// (when not NULL) receives the number of pairs.
Xapian::Query with_proximity(const Xapian::Query &query, const Xapian::Query &words, uint32_t window, double weight,
                             size_t *pairs = nullptr);

/// Copies out the data of the first document indexed by `unique_term` of a Database or WritableDatabase.
template <typename Database>
void document_data(Database &db, const std::string &unique_term, bool *found, char **out, size_t *out_len) {
    Xapian::PostingIterator posting = db.postlist_begin(unique_term);
    bool exists = posting != db.postlist_end(unique_term);
    std::string data = exists ? db.get_document(*posting).get_data() : std::string();
    copy_out(data, out, out_len);
    if (found != nullptr) *found = exists;
}

/// Takes the spelling words a document recorded in value `slot` (cx_writable_database_write_document_spelling) out
/// of the spelling table; nothing for a document without a record.
void remove_recorded_spelling(Xapian::WritableDatabase &db, Xapian::docid docid, Xapian::valueno slot);

} // namespace cx

#endif
