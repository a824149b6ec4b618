#include "CXInternal.hpp"

#include <memory>

extern "C" {

cx_database *cx_database_open(const char *path, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_database *>(nullptr), [&] {
        std::string directory = cx::c_string(path, "path");
        if (directory.empty()) cx::invalid_argument("path is empty; give the directory of the database");
        auto opened = std::make_unique<cx_database>(cx_database{Xapian::Database(directory)});
        opened->shards.push_back(opened->db);
        return opened.release();
    });
}

bool cx_database_add_database(cx_database *db, const char *path, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        std::string directory = cx::c_string(path, "path");
        if (directory.empty()) cx::invalid_argument("path is empty; give the directory of the database");
        Xapian::Database added(directory);
        db->db.add_database(added);
        cx::record_shards(*db, {added});
        return true;
    });
}

void cx_database_free(cx_database *db) noexcept {
    try {
        delete db;
    } catch (...) {
    }
}

bool cx_database_close(cx_database *db, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        // Closing twice is harmless, as in Xapian.
        cx::require(db, "database")->db.close();
        db->closed = true;
        return true;
    });
}

bool cx_database_reopen(cx_database *db, bool *changed, cx_error **err) noexcept {
    if (changed != nullptr) *changed = false;
    return cx::guard(err, false, [&] {
        bool moved = cx::reopen(*cx::require_open(db));
        *db->needs_reopen = false;
        if (changed != nullptr) *changed = moved;
        return true;
    });
}

uint32_t cx_database_doc_count(cx_database *db, cx_error **err) noexcept {
    return cx::guard(err, uint32_t(0), [&] {
        cx::require_open(db);
        return cx::read_retrying(*db, cx::default_max_retries, [&] { return db->db.get_doccount(); });
    });
}

uint32_t cx_database_term_frequency(cx_database *db, const char *term, size_t term_len, cx_error **err) noexcept {
    return cx::guard(err, uint32_t(0), [&] {
        cx::require_open(db);
        std::string name = cx::bytes(term, term_len, "term");
        return cx::read_retrying(*db, cx::default_max_retries, [&] { return db->db.get_termfreq(name); });
    });
}

bool cx_database_get_metadata(cx_database *db, const char *key, size_t key_len,
                              char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        std::string name = cx::bytes(key, key_len, "metadata key");
        if (name.empty()) cx::invalid_argument("metadata key is empty; give a non-empty key");
        std::string value = cx::read_retrying(*db, cx::default_max_retries, [&] { return db->db.get_metadata(name); });
        cx::copy_out(value, out, out_len);
        return true;
    });
}

bool cx_database_document_data(cx_database *db, const char *unique_term, size_t term_len,
                               bool *found, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    if (found != nullptr) *found = false;
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        std::string unique = cx::unique_term(unique_term, term_len);
        // document_data copies out only after its last read, so a retried attempt never leaks a buffer.
        cx::read_retrying(*db, cx::default_max_retries, [&] { cx::document_data(db->db, unique, found, out, out_len); });
        return true;
    });
}

bool cx_database_document(cx_database *db, const char *unique_term, size_t term_len, cx_document **out,
                          cx_error **err) noexcept {
    if (out != nullptr) *out = nullptr;
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        cx::require(out, "out");
        std::string unique = cx::unique_term(unique_term, term_len);
        std::unique_ptr<cx_document> copy;
        cx::read_retrying(*db, cx::default_max_retries, [&] {
            copy.reset();
            Xapian::PostingIterator posting = db->db.postlist_begin(unique);
            if (posting == db->db.postlist_end(unique)) return;
            const Xapian::Document stored = db->db.get_document(*posting);
            auto made = std::make_unique<cx_document>();
            for (auto term = stored.termlist_begin(); term != stored.termlist_end(); ++term) {
                for (auto position = term.positionlist_begin(); position != term.positionlist_end(); ++position) {
                    made->doc.add_posting(*term, *position, 0);
                }
                made->doc.add_term(*term, term.get_wdf());
            }
            for (auto value = stored.values_begin(); value != stored.values_end(); ++value) {
                made->doc.add_value(value.get_valueno(), *value);
            }
            made->doc.set_data(stored.get_data());
            copy = std::move(made);
        });
        *out = copy.release();
        return true;
    });
}

bool cx_database_compact(cx_database *db, const char *destination, unsigned level, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        std::string directory = cx::c_string(destination, "destination");
        if (directory.empty()) cx::invalid_argument("destination is empty; give a directory for the compacted copy");
        if (level != Xapian::Compactor::STANDARD && level != Xapian::Compactor::FULL &&
            level != Xapian::Compactor::FULLER) {
            cx::invalid_argument("compaction level " + std::to_string(level) +
                                 " is unknown; use cx_compact_standard, cx_compact_full or cx_compact_fuller");
        }
        // Not retried: a failed attempt may have left part of the output behind.
        cx::read_retrying(*db, 0, [&] { db->db.compact(directory, level); });
        return true;
    });
}

} // extern "C"
