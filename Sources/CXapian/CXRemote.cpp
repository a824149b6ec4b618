#include "CXInternal.hpp"

#include <memory>

namespace {

// The writes of a remote writer travel to the server one by one; when one fails the server's batch is as lost as
// a local one's.
constexpr bool loses_batch = true;

std::string remote_host(const char *host) {
    std::string name = cx::c_string(host, "host");
    if (name.empty()) cx::invalid_argument("host is empty; give the name or address of the xapian-tcpsrv host");
    return name;
}

void check_port(unsigned port) {
    if (port == 0 || port > 65535) {
        cx::invalid_argument("port " + std::to_string(port) + " is out of range; give a port from 1 to 65535");
    }
}

Xapian::Database open_remote(const char *host, unsigned port, unsigned timeout_ms, unsigned connect_timeout_ms) {
    std::string name = remote_host(host);
    check_port(port);
    return Xapian::Remote::open(name, port, timeout_ms, connect_timeout_ms);
}

} // namespace

extern "C" {

cx_database *cx_database_open_remote(const char *host, unsigned port, unsigned timeout_ms,
                                     unsigned connect_timeout_ms, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_database *>(nullptr), [&] {
        auto opened = std::make_unique<cx_database>(cx_database{open_remote(host, port, timeout_ms, connect_timeout_ms)});
        opened->has_remote = true;
        opened->shards.push_back(opened->db);
        return opened.release();
    });
}

bool cx_database_add(cx_database *db, const cx_database *other, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        cx::require(other, "other database");
        if (other->closed) throw Xapian::DatabaseClosedError("the database to add was closed; open it again to use it");
        db->db.add_database(other->db);
        cx::record_shards(*db, other->shards);
        db->has_remote = db->has_remote || other->has_remote;
        return true;
    });
}

bool cx_database_add_remote(cx_database *db, const char *host, unsigned port, unsigned timeout_ms,
                            unsigned connect_timeout_ms, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        Xapian::Database added = open_remote(host, port, timeout_ms, connect_timeout_ms);
        db->db.add_database(added);
        cx::record_shards(*db, {added});
        db->has_remote = true;
        return true;
    });
}

cx_writable_database *cx_writable_database_open_remote(const char *host, unsigned port, unsigned timeout_ms,
                                                       unsigned connect_timeout_ms, int flags,
                                                       cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_writable_database *>(nullptr), [&] {
        std::string name = remote_host(host);
        check_port(port);
        if ((flags & ~Xapian::DB_RETRY_LOCK) != 0) {
            cx::invalid_argument("flags " + std::to_string(flags) + " are not allowed for a remote database; give 0 or cx_db_retry_lock");
        }
        return new cx_writable_database{Xapian::Remote::open_writable(name, port, timeout_ms, connect_timeout_ms, flags)};
    });
}

bool cx_database_get_uuid(cx_database *db, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        std::string uuid = cx::read_retrying(*db, cx::default_max_retries, [&] { return db->db.get_uuid(); });
        cx::copy_out(uuid, out, out_len);
        return true;
    });
}

bool cx_writable_database_get_uuid(cx_writable_database *db, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::write_guard(db, err, false, [&] {
        cx::copy_out(cx::require_open(db)->db.get_uuid(), out, out_len);
        return true;
    });
}

bool cx_writable_database_sweep_prefix(cx_writable_database *db, const char *prefix, size_t prefix_len,
                                       const char *keep, size_t keep_len, uint32_t spelling_slot, uint32_t *swept,
                                       cx_error **err) noexcept {
    if (swept != nullptr) *swept = 0;
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        std::string start = cx::bytes(prefix, prefix_len, "prefix");
        if (start.empty()) cx::invalid_argument("prefix is empty; a sweep needs the prefix of the tag terms");
        std::string kept = cx::bytes(keep, keep_len, "keep");
        if (kept.compare(0, start.size(), start) != 0) {
            cx::invalid_argument("the term to keep does not start with the prefix; give a tag term of that prefix");
        }
        // Listed before deleting: an all-terms iterator must not run over a database it changes.
        std::vector<std::string> stale;
        for (Xapian::TermIterator term = db->db.allterms_begin(start); term != db->db.allterms_end(start); ++term) {
            if (*term != kept) stale.push_back(*term);
        }
        for (const std::string &term : stale) {
            if (spelling_slot != CX_NO_SPELLING_RECORD) {
                // Read before anything of this term is deleted; a document already deleted under an earlier term is
                // no longer listed, so none is taken out twice.
                std::vector<Xapian::docid> documents;
                for (auto posting = db->db.postlist_begin(term); posting != db->db.postlist_end(term); ++posting) {
                    documents.push_back(*posting);
                }
                for (Xapian::docid document : documents) cx::remove_recorded_spelling(db->db, document, spelling_slot);
            }
            db->db.delete_document(term);
        }
        if (swept != nullptr) *swept = static_cast<uint32_t>(stale.size());
        return true;
    }, loses_batch);
}

} // extern "C"
