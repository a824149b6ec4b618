#include "CXInternal.hpp"

namespace {

// A write that fails inside Xapian cancels every uncommitted change, so its errors carry batch_lost.
// The shim's own argument checks run before Xapian is touched and never do.
constexpr bool loses_batch = true;

} // namespace

extern "C" {

cx_writable_database *cx_writable_database_open(const char *path, int flags, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_writable_database *>(nullptr), [&] {
        std::string directory = cx::c_string(path, "path");
        if (directory.empty()) cx::invalid_argument("path is empty; give the directory of the database");
        return new cx_writable_database{Xapian::WritableDatabase(directory, flags)};
    });
}

void cx_writable_database_free(cx_writable_database *db) noexcept {
    if (db == nullptr) return;
    // Term generators may share this database for spelling data; closing (rather than only dropping our
    // reference) releases the write lock now. Like Xapian's destructor this commits what is pending; a commit
    // that fails discards the database, and the destructor then commits nothing more (it cancels the transaction
    // discard() leaves open). A database a failed write discarded was closed already: nothing is committed on it.
    if (!db->closed) {
        try {
            db->db.close();
            db->closed = true;
        } catch (...) {
            cx::discard(*db);
        }
    }
    try {
        delete db;
    } catch (...) {
    }
}

void cx_writable_database_discard(cx_writable_database *db) noexcept {
    if (db == nullptr || db->closed) return;
    cx::discard(*db);
}

bool cx_writable_database_is_discarded(const cx_writable_database *db) noexcept {
    return db != nullptr && db->discarded;
}

bool cx_writable_database_close(cx_writable_database *db, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require(db, "database");
        // Closing twice is harmless, as in Xapian; closing one a failed write discarded says so.
        if (db->discarded) cx::require_open(db);
        db->db.close();
        db->closed = true;
        return true;
    }, loses_batch);
}

bool cx_writable_database_commit(cx_writable_database *db, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db)->db.commit();
        return true;
    }, loses_batch);
}

bool cx_writable_database_begin_transaction(cx_writable_database *db, bool durable, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db)->db.begin_transaction(durable);
        return true;
    }, loses_batch);
}

bool cx_writable_database_commit_transaction(cx_writable_database *db, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db)->db.commit_transaction();
        return true;
    }, loses_batch);
}

bool cx_writable_database_cancel_transaction(cx_writable_database *db, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db)->db.cancel_transaction();
        return true;
    });
}

bool cx_writable_database_set_metadata(cx_writable_database *db, const char *key, size_t key_len,
                                       const char *value, size_t value_len, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        std::string name = cx::bytes(key, key_len, "metadata key");
        if (name.empty()) cx::invalid_argument("metadata key is empty; give a non-empty key");
        std::string contents = cx::bytes(value, value_len, "metadata value");
        db->db.set_metadata(name, contents);
        return true;
    }, loses_batch);
}

bool cx_writable_database_get_metadata(cx_writable_database *db, const char *key, size_t key_len,
                                       char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        std::string name = cx::bytes(key, key_len, "metadata key");
        if (name.empty()) cx::invalid_argument("metadata key is empty; give a non-empty key");
        cx::copy_out(db->db.get_metadata(name), out, out_len);
        return true;
    });
}

bool cx_writable_database_replace_document(cx_writable_database *db, const char *unique_term, size_t term_len,
                                           cx_document *document, uint32_t *docid, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        cx::require(document, "document");
        std::string unique = cx::unique_term(unique_term, term_len);
        // Without the term in the document, the next replacement would not find it and would add a duplicate.
        document->doc.add_boolean_term(unique);
        Xapian::docid id = db->db.replace_document(unique, document->doc);
        if (docid != nullptr) *docid = id;
        return true;
    }, loses_batch);
}

bool cx_writable_database_add_document(cx_writable_database *db, const char *unique_term, size_t term_len,
                                       cx_document *document, uint32_t *docid, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        cx::require(document, "document");
        std::string unique = cx::unique_term(unique_term, term_len);
        document->doc.add_boolean_term(unique);
        Xapian::docid id = db->db.add_document(document->doc);
        if (docid != nullptr) *docid = id;
        return true;
    }, loses_batch);
}

bool cx_writable_database_replace_document_id(cx_writable_database *db, uint32_t docid, const char *unique_term,
                                              size_t term_len, cx_document *document, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        cx::require(document, "document");
        if (docid == 0) cx::invalid_argument("document id 0 names no document; give an id listed by cx_writable_database_list_documents");
        std::string unique = cx::unique_term(unique_term, term_len);
        document->doc.add_boolean_term(unique);
        // By id, not by term: replacing by term makes Xapian look the term up, and every lookup writes out the
        // positions of all the documents written since the last one (one scattered B-tree write per term and
        // document), which on a large database costs far more than the document itself.
        db->db.replace_document(docid, document->doc);
        return true;
    }, loses_batch);
}

bool cx_writable_database_list_documents(cx_writable_database *db, const char *prefix, size_t prefix_len,
                                         char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        std::string start = cx::bytes(prefix, prefix_len, "prefix");
        if (start.empty()) cx::invalid_argument("prefix is empty; give the prefix of the unique id terms (e.g. \"Q\")");
        std::string listing;
        // Terms first, then their postings: an all-terms iterator must not be interleaved with other requests to
        // a remote database's server.
        std::vector<std::string> terms;
        for (Xapian::TermIterator term = db->db.allterms_begin(start); term != db->db.allterms_end(start); ++term) {
            terms.push_back(*term);
        }
        for (const std::string &term : terms) {
            if (term.size() > UINT32_MAX) continue;
            for (Xapian::PostingIterator posting = db->db.postlist_begin(term); posting != db->db.postlist_end(term);
                 ++posting) {
                uint32_t entry[2] = {static_cast<uint32_t>(*posting), static_cast<uint32_t>(term.size())};
                listing.append(reinterpret_cast<const char *>(entry), sizeof entry);
                listing += term;
            }
        }
        cx::copy_out(listing, out, out_len);
        return true;
    });
}

bool cx_writable_database_delete_document(cx_writable_database *db, const char *unique_term, size_t term_len,
                                          cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        std::string unique = cx::unique_term(unique_term, term_len);
        db->db.delete_document(unique);
        return true;
    }, loses_batch);
}

uint32_t cx_writable_database_doc_count(cx_writable_database *db, cx_error **err) noexcept {
    return cx::write_guard(db, err, uint32_t(0), [&] {
        return cx::require_open(db)->db.get_doccount();
    });
}

bool cx_writable_database_document_data(cx_writable_database *db, const char *unique_term, size_t term_len,
                                        bool *found, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    if (found != nullptr) *found = false;
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        std::string unique = cx::unique_term(unique_term, term_len);
        cx::document_data(db->db, unique, found, out, out_len);
        return true;
    });
}

} // extern "C"

namespace cx {

bool is_write_failure(cx_error_code code) noexcept {
    switch (code) {
    case CX_ERR_DATABASE:
    case CX_ERR_DATABASE_CORRUPT:
    case CX_ERR_NETWORK:
    case CX_ERR_NETWORK_TIMEOUT:
    case CX_ERR_BAD_ALLOC:
    case CX_ERR_STD_EXCEPTION:
    case CX_ERR_XAPIAN_OTHER:
    case CX_ERR_UNKNOWN:
        return true;
    default:
        return false;
    }
}

void discard(cx_writable_database &db) noexcept {
    // An unflushed transaction commits nothing when it begins, and close() skips its commit while one is open
    // (a remote database cancels it on the server); the destructor then cancels it instead of committing.
    try {
        db.db.begin_transaction(false);
    } catch (...) {
        // Already in a transaction (close() cancels it), or the connection is gone: close() still releases.
    }
    try {
        db.db.close();
    } catch (...) {
        // A remote database whose server is gone closes its end anyway; nothing else here can fail.
    }
    db.closed = true;
}

} // namespace cx
