// Spelling data kept exact across replacements: each document records the words it fed to the spelling table, so
// replacing or deleting it takes exactly those back out (Xapian's FLAG_SPELLING only ever adds). The record also
// holds digests of the document, so that writing the same document again is skipped, and a document whose terms
// are unchanged (only stored fields or values differ) is rewritten without touching its terms.
#include "CXInternal.hpp"

#include <map>

namespace {

constexpr bool loses_batch = true;

void append_varint(std::string &out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(char((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(char(value));
}

bool read_varint(const std::string &in, size_t &at, uint64_t &value) {
    value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (at >= in.size()) return false;
        const unsigned char byte = static_cast<unsigned char>(in[at++]);
        value |= uint64_t(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return true;
    }
    return false;
}

// A document's record (its value slot): format byte, 16-byte digest of the document's terms (with wdf and
// positions), 16-byte digest of the rest (values but this one, data), then each spelling word as varint length,
// bytes, varint count. Format 1, written before, held one digest of both: still read, for its words.
constexpr char record_format = 2;
constexpr char record_format_one_digest = 1;
constexpr size_t digest_size = 16;

std::string encode_words(const std::map<std::string, Xapian::termcount> &counts) {
    std::string out;
    for (const auto &entry : counts) {
        append_varint(out, entry.first.size());
        out += entry.first;
        append_varint(out, entry.second);
    }
    return out;
}

std::map<std::string, Xapian::termcount> decode_words(const std::string &in, size_t at) {
    std::map<std::string, Xapian::termcount> counts;
    while (at < in.size()) {
        uint64_t length = 0, count = 0;
        if (!read_varint(in, at, length) || length > in.size() - at) break;
        std::string word = in.substr(at, size_t(length));
        at += size_t(length);
        if (!read_varint(in, at, count)) break;
        counts[word] += Xapian::termcount(count);
    }
    return counts;
}

/// Two independent 64-bit hashes over length-delimited fields: a change detector, stable across runs and builds
/// (it is stored), not a defence against crafted collisions.
struct Digest {
    uint64_t first = 0xcbf29ce484222325ULL;
    uint64_t second = 0x9e3779b97f4a7c15ULL;

    void add(const char *bytes, size_t length) {
        add_number(length);
        for (size_t index = 0; index < length; ++index) mix(static_cast<unsigned char>(bytes[index]));
    }
    void add(const std::string &bytes) { add(bytes.data(), bytes.size()); }
    void add_number(uint64_t number) {
        for (int byte = 0; byte < 8; ++byte) mix(static_cast<unsigned char>(number >> (8 * byte)));
    }
    void mix(unsigned char byte) {
        first = (first ^ byte) * 0x100000001b3ULL;
        second = (second + byte + 1) * 0xff51afd7ed558ccdULL;
        second ^= second >> 29;
    }
    std::string bytes() const {
        std::string out;
        for (uint64_t part : {first, second}) {
            for (int byte = 0; byte < 8; ++byte) out.push_back(char(part >> (8 * byte)));
        }
        return out;
    }
};

/// The digest of `document`'s terms, with their wdf and positions.
std::string terms_digest(const Xapian::Document &document) {
    Digest digest;
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        digest.add(*term);
        digest.add_number(term.get_wdf());
        digest.add_number(term.positionlist_count());
        for (auto position = term.positionlist_begin(); position != term.positionlist_end(); ++position) {
            digest.add_number(*position);
        }
    }
    return digest.bytes();
}

/// The digest of what `document` holds besides its terms and value `slot`: the other values and the data.
std::string rest_digest(const Xapian::Document &document, Xapian::valueno slot) {
    Digest digest;
    for (auto value = document.values_begin(); value != document.values_end(); ++value) {
        if (value.get_valueno() == slot) continue;
        digest.add_number(value.get_valueno());
        digest.add(*value);
    }
    digest.add(document.get_data());
    return digest.bytes();
}

/// What a document's record holds: its digests (empty without a record, or in a format-1 record) and its
/// spelling words.
struct Record {
    std::string terms_digest;
    std::string rest_digest;
    std::map<std::string, Xapian::termcount> words;
};

Record decode_record(const std::string &in) {
    if (in.size() >= 1 + 2 * digest_size && in[0] == record_format) {
        return Record{in.substr(1, digest_size), in.substr(1 + digest_size, digest_size),
                      decode_words(in, 1 + 2 * digest_size)};
    }
    if (in.size() >= 1 + digest_size && in[0] == record_format_one_digest) {
        return Record{{}, {}, decode_words(in, 1 + digest_size)};
    }
    return {};
}

/// Brings the spelling table from `old_counts` to `new_counts`: only the difference of each word is written.
void apply_difference(Xapian::WritableDatabase &db, const std::map<std::string, Xapian::termcount> &old_counts,
                      const std::map<std::string, Xapian::termcount> &new_counts) {
    auto old_word = old_counts.begin();
    auto new_word = new_counts.begin();
    while (old_word != old_counts.end() || new_word != new_counts.end()) {
        if (new_word == new_counts.end() || (old_word != old_counts.end() && old_word->first < new_word->first)) {
            db.remove_spelling(old_word->first, old_word->second);
            ++old_word;
        } else if (old_word == old_counts.end() || new_word->first < old_word->first) {
            db.add_spelling(new_word->first, new_word->second);
            ++new_word;
        } else {
            if (new_word->second > old_word->second) {
                db.add_spelling(new_word->first, new_word->second - old_word->second);
            } else if (new_word->second < old_word->second) {
                db.remove_spelling(new_word->first, old_word->second - new_word->second);
            }
            ++old_word;
            ++new_word;
        }
    }
}

/// The document indexed by `unique`: its id (0 when there is none) and record, and whether other documents carry
/// the term too (written by something else: replacing by term leaves one of them).
struct Indexed {
    Xapian::docid id = 0;
    bool has_duplicates = false;
    Record record;
    /// The document as read (lazily: only its record value so far). Replacing it with this very object, changed,
    /// is Xapian's modification shortcut: what was not changed (its terms) is not compared or rewritten.
    Xapian::Document stored;
};

Indexed indexed(Xapian::WritableDatabase &db, const std::string &unique, Xapian::valueno slot) {
    Xapian::PostingIterator posting = db.postlist_begin(unique);
    const Xapian::PostingIterator end = db.postlist_end(unique);
    if (posting == end) return {};
    Indexed found;
    found.id = *posting;
    // The posting list just named the document: checking that it exists would cost another B-tree lookup.
    found.stored = db.get_document(found.id, Xapian::DOC_ASSUME_VALID);
    found.record = decode_record(found.stored.get_value(slot));
    found.has_duplicates = ++posting != end;
    return found;
}

/// Replaces the stored document's values and data with those of `source`, keeping its terms: the document read by
/// `indexed` is replaced as itself, Xapian's modification shortcut, so no term or position list is compared or
/// rewritten (about three quarters of a whole replacement's cost).
void replace_values_and_data(Xapian::WritableDatabase &db, Indexed &existing, const Xapian::Document &source) {
    existing.stored.clear_values();
    for (auto value = source.values_begin(); value != source.values_end(); ++value) {
        existing.stored.add_value(value.get_valueno(), *value);
    }
    existing.stored.set_data(source.get_data());
    db.replace_document(existing.id, existing.stored);
}

} // namespace

void cx::remove_recorded_spelling(Xapian::WritableDatabase &db, Xapian::docid docid, Xapian::valueno slot) {
    apply_difference(db, decode_record(db.get_document(docid).get_value(slot)).words, {});
}

extern "C" {

cx_spelling_words *cx_spelling_words_new(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_spelling_words *>(nullptr), [&] { return new cx_spelling_words(); });
}

void cx_spelling_words_free(cx_spelling_words *words) noexcept {
    try {
        delete words;
    } catch (...) {
    }
}

bool cx_spelling_words_clear(cx_spelling_words *words, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(words, "spelling words")->counts.clear();
        return true;
    });
}

bool cx_writable_database_write_document_spelling(cx_writable_database *db, const char *unique_term, size_t term_len,
                                                  cx_document *document, uint32_t slot,
                                                  const cx_spelling_words *words, bool fresh, bool *written,
                                                  cx_error **err) noexcept {
    if (written != nullptr) *written = false;
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        cx::require(document, "document");
        cx::require(words, "spelling words");
        std::string unique = cx::unique_term(unique_term, term_len);
        document->doc.add_boolean_term(unique);
        // remove_value throws when the slot is empty.
        if (!document->doc.get_value(slot).empty()) document->doc.remove_value(slot);
        const std::string terms = terms_digest(document->doc);
        const std::string rest = rest_digest(document->doc, slot);
        Indexed existing = fresh ? Indexed() : indexed(db->db, unique, slot);
        const Record &old = existing.record;
        const bool same_terms = existing.id != 0 && !existing.has_duplicates && !old.terms_digest.empty() &&
                                old.terms_digest == terms && old.words == words->counts;
        // The same document again (an UPDATE writing the same text, or changing what no field reads): rewriting it
        // would change nothing but cost the whole replacement.
        if (same_terms && old.rest_digest == rest) return true;
        document->doc.add_value(slot, std::string(1, record_format) + terms + rest + encode_words(words->counts));
        if (same_terms) {
            // Only stored fields or values changed (a version, a price).
            replace_values_and_data(db->db, existing, document->doc);
            if (written != nullptr) *written = true;
            return true;
        }
        apply_difference(db->db, old.words, words->counts);
        // The lookup above found the document's id: replacing by id spares Xapian looking the term up again.
        if (fresh || existing.id == 0) {
            db->db.add_document(document->doc);
        } else if (existing.has_duplicates) {
            db->db.replace_document(unique, document->doc);
        } else {
            db->db.replace_document(existing.id, document->doc);
        }
        if (written != nullptr) *written = true;
        return true;
    }, loses_batch);
}

bool cx_writable_database_write_document_rest(cx_writable_database *db, const char *unique_term, size_t term_len,
                                              cx_document *rest, uint32_t slot, bool *applied, bool *written,
                                              cx_error **err) noexcept {
    if (applied != nullptr) *applied = false;
    if (written != nullptr) *written = false;
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        cx::require(rest, "document");
        std::string unique = cx::unique_term(unique_term, term_len);
        Indexed existing = indexed(db->db, unique, slot);
        const Record &old = existing.record;
        // Without this version's record, nothing says what the stored terms are: the caller writes it whole.
        if (existing.id == 0 || existing.has_duplicates || old.terms_digest.empty()) return true;
        if (applied != nullptr) *applied = true;
        if (!rest->doc.get_value(slot).empty()) rest->doc.remove_value(slot);
        const std::string digest = rest_digest(rest->doc, slot);
        if (old.rest_digest == digest) return true;
        rest->doc.add_value(slot, std::string(1, record_format) + old.terms_digest + digest + encode_words(old.words));
        replace_values_and_data(db->db, existing, rest->doc);
        if (written != nullptr) *written = true;
        return true;
    }, loses_batch);
}

bool cx_writable_database_delete_document_spelling(cx_writable_database *db, const char *unique_term,
                                                   size_t term_len, uint32_t slot, cx_error **err) noexcept {
    return cx::write_guard(db, err, false, [&] {
        cx::require_open(db);
        std::string unique = cx::unique_term(unique_term, term_len);
        apply_difference(db->db, indexed(db->db, unique, slot).record.words, {});
        db->db.delete_document(unique);
        return true;
    }, loses_batch);
}

bool cx_database_spellings(cx_database *db, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        std::map<std::string, Xapian::termcount> counts;
        for (auto word = db->db.spellings_begin(); word != db->db.spellings_end(); ++word) {
            counts[*word] += word.get_termfreq();
        }
        cx::copy_out(encode_words(counts), out, out_len);
        return true;
    });
}

bool cx_database_terms(cx_database *db, const char *prefix, size_t prefix_len, uint32_t limit, char **out,
                       size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        const std::string start = cx::bytes(prefix, prefix_len, "prefix");
        std::map<std::string, Xapian::termcount> counts;
        for (auto term = db->db.allterms_begin(start); term != db->db.allterms_end(start); ++term) {
            if (limit != 0 && counts.size() >= limit) break;
            counts[*term] += term.get_termfreq();
        }
        cx::copy_out(encode_words(counts), out, out_len);
        return true;
    });
}

} // extern "C"
