#include "CXInternal.hpp"

#include <algorithm>
#include <thread>

namespace cx {

void in_parallel(size_t count, const std::function<void(size_t)> &task) {
    if (count == 0) return;
    std::vector<std::exception_ptr> failures(count);
    std::vector<std::thread> helpers;
    std::vector<size_t> left;
    helpers.reserve(count - 1);
    left.reserve(count - 1);
    auto attempt = [&](size_t index) noexcept {
        try {
            task(index);
        } catch (...) {
            failures[index] = std::current_exception();
        }
    };
    for (size_t index = 1; index < count; ++index) {
        try {
            helpers.emplace_back(attempt, index);
        } catch (...) {
            // No thread to be had (std::system_error): the task still runs, after the caller's own.
            left.push_back(index);
        }
    }
    attempt(0);
    for (size_t index : left) attempt(index);
    for (std::thread &helper : helpers) helper.join();
    for (const std::exception_ptr &failure : failures) {
        if (failure) std::rethrow_exception(failure);
    }
}

const std::vector<Xapian::Database> *parallel_shards(const cx_database &handle) {
    if (!handle.has_remote || handle.shards.size() < 2 || handle.shards.size() != handle.db.size()) return nullptr;
    return &handle.shards;
}

void record_shards(cx_database &handle, const std::vector<Xapian::Database> &added) {
    // A copy first: `added` may be handle's own list (a database added to itself).
    std::vector<Xapian::Database> copies(added);
    handle.shards.insert(handle.shards.end(), copies.begin(), copies.end());
}

bool reopen(cx_database &handle) {
    const std::vector<Xapian::Database> *shards = parallel_shards(handle);
    if (shards == nullptr) return handle.db.reopen();
    // Database::reopen() reopens its shards one after the other: over remote shards, a round trip each.
    std::vector<char> changed(shards->size(), 0);
    std::vector<Xapian::Database> &each = handle.shards;
    in_parallel(each.size(), [&](size_t shard) { changed[shard] = each[shard].reopen() ? 1 : 0; });
    return std::find(changed.begin(), changed.end(), 1) != changed.end();
}

std::vector<std::string> documents_read(Xapian::Database &db, const std::vector<Xapian::Database> *shards,
                                        const std::vector<Xapian::docid> &docids,
                                        const std::function<std::string(const Xapian::Document &)> &read) {
    std::vector<std::string> read_out(docids.size());
    if (shards == nullptr) {
        for (size_t index = 0; index < docids.size(); ++index) {
            read_out[index] = read(db.get_document(docids[index], Xapian::DOC_ASSUME_VALID));
        }
        return read_out;
    }
    // Combined document id D is document (D - 1) / n + 1 of shard (D - 1) mod n.
    size_t count = shards->size();
    std::vector<std::vector<size_t>> reads(count);
    for (size_t index = 0; index < docids.size(); ++index) reads[(docids[index] - 1) % count].push_back(index);
    std::vector<size_t> busy;
    for (size_t shard = 0; shard < count; ++shard) {
        if (!reads[shard].empty()) busy.push_back(shard);
    }
    in_parallel(busy.size(), [&](size_t task) {
        size_t shard = busy[task];
        const Xapian::Database &reader = (*shards)[shard];
        for (size_t index : reads[shard]) {
            Xapian::docid local = Xapian::docid((docids[index] - 1) / count + 1);
            read_out[index] = read(reader.get_document(local, Xapian::DOC_ASSUME_VALID));
        }
    });
    return read_out;
}

} // namespace cx
