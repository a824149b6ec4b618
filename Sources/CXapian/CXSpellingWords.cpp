// Spelling data kept exact across replacements: each document records the words it fed to the spelling table, so
// replacing or deleting it takes exactly those back out (Xapian's FLAG_SPELLING only ever adds). The record also
// holds digests of the document, so that writing the same document again is skipped, and a document whose terms
// are unchanged (only stored fields or values differ) is rewritten without touching its terms.
//
// The words themselves are not stored: every word a document feeds is one of its own unprefixed terms, so the
// record holds only how often each of those terms was fed, in term list order, and the old document's term list
// names the words again when it is replaced or deleted. Spelled out, the words made the index a fifth larger.
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

using WordCounts = std::map<std::string, Xapian::termcount>;

// A document's record (its value slot): format byte, 16-byte digest of the document's terms (with wdf and
// positions), 16-byte digest of the rest (values but this one, data), then the spelling counts of the document's
// unprefixed terms (see encode_counts). Formats 2 (the same digests) and 1 (one digest of both), written before,
// spelled each word out after the digests (varint length, bytes, varint count): still read, for their words.
constexpr char record_format = 3;
constexpr char record_format_spelled_words = 2;
constexpr char record_format_one_digest = 1;
constexpr size_t digest_size = 16;

void append_word(std::string &out, const std::string &word, Xapian::termcount count) {
    append_varint(out, word.size());
    out += word;
    append_varint(out, count);
}

std::string encode_words(const WordCounts &counts) {
    std::string out;
    for (const auto &entry : counts) append_word(out, entry.first, entry.second);
    return out;
}

/// Adds the words spelled out in `in` from `at` on to `counts`.
void decode_words_into(const std::string &in, size_t at, WordCounts &counts) {
    while (at < in.size()) {
        uint64_t length = 0, count = 0;
        if (!read_varint(in, at, length) || length > in.size() - at) break;
        std::string word = in.substr(at, size_t(length));
        at += size_t(length);
        if (!read_varint(in, at, count)) break;
        counts[word] += Xapian::termcount(count);
    }
}

/// How often `document`'s words were fed to the spelling table (`counts`), as a record holds it: for each unprefixed
/// term of the document in term list order, its count, run-length coded since most words of a record occur once:
/// a run of terms fed once (varint), then the next term's count (varint: 0 for none, c - 1 for c >= 2), and so on,
/// ending with a run (perhaps 0) that reaches the last term. Words that are not terms of the document (a caller
/// counting words of another text) follow spelled out, as in format 2.
std::string encode_counts(const Xapian::Document &document, const WordCounts &counts) {
    std::string out;
    std::string strays;
    uint64_t run = 0;
    auto word = counts.begin();
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        const std::string &name = *term;
        if (!cx::is_unprefixed_word(name)) continue;
        for (; word != counts.end() && word->first < name; ++word) append_word(strays, word->first, word->second);
        Xapian::termcount count = 0;
        if (word != counts.end() && word->first == name) count = (word++)->second;
        if (count == 1) {
            ++run;
            continue;
        }
        append_varint(out, run);
        append_varint(out, count == 0 ? 0 : count - 1);
        run = 0;
    }
    for (; word != counts.end(); ++word) append_word(strays, word->first, word->second);
    append_varint(out, run);
    return out + strays;
}

/// The words `encoded` (from encode_counts) says `document` fed, `document` being the one the record was written
/// with. A record that does not fit the document's terms (damaged) gives the words decoded up to there.
WordCounts decode_counts(const Xapian::Document &document, const std::string &encoded, size_t at) {
    WordCounts counts;
    uint64_t run = 0, value = 0;
    if (!read_varint(encoded, at, run)) return counts;
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        const std::string &name = *term;
        if (!cx::is_unprefixed_word(name)) continue;
        if (run > 0) {
            counts.emplace_hint(counts.end(), name, 1);
            --run;
            continue;
        }
        if (!read_varint(encoded, at, value)) return counts;
        if (value != 0) counts.emplace_hint(counts.end(), name, Xapian::termcount(value + 1));
        if (!read_varint(encoded, at, run)) return counts;
    }
    if (run == 0) decode_words_into(encoded, at, counts);
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

/// What a document's record holds: its digests (empty without a record, or in a format-1 record) and what gives
/// its spelling words (nothing without a record).
struct Record {
    char format = 0;
    std::string terms_digest;
    std::string rest_digest;
    /// Format 3: the spelling counts of the document's terms (encode_counts); formats 1 and 2: the words spelled out.
    std::string words;

    /// The spelling words of `document`, the document this record was read from.
    WordCounts words_of(const Xapian::Document &document) const {
        if (format == record_format) return decode_counts(document, words, 0);
        WordCounts counts;
        decode_words_into(words, 0, counts);
        return counts;
    }
};

Record decode_record(const std::string &in) {
    if (in.size() >= 1 + 2 * digest_size && (in[0] == record_format || in[0] == record_format_spelled_words)) {
        return Record{in[0], in.substr(1, digest_size), in.substr(1 + digest_size, digest_size),
                      in.substr(1 + 2 * digest_size)};
    }
    if (in.size() >= 1 + digest_size && in[0] == record_format_one_digest) {
        return Record{in[0], {}, {}, in.substr(1 + digest_size)};
    }
    return {};
}

std::string encode_record(const std::string &terms, const std::string &rest, const std::string &counts) {
    return std::string(1, record_format) + terms + rest + counts;
}

/// Brings the spelling table from `old_counts` to `new_counts`: only the difference of each word is written.
void apply_difference(Xapian::WritableDatabase &db, const WordCounts &old_counts, const WordCounts &new_counts) {
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
    const Xapian::Document document = db.get_document(docid);
    apply_difference(db, decode_record(document.get_value(slot)).words_of(document), {});
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
        const std::string counts = encode_counts(document->doc, words->counts);
        Indexed existing = fresh ? Indexed() : indexed(db->db, unique, slot);
        const Record &old = existing.record;
        // Equal term digests mean equal term lists, so equal counts encode to equal bytes.
        const bool same_terms = existing.id != 0 && !existing.has_duplicates && !old.terms_digest.empty() &&
                                old.terms_digest == terms &&
                                (old.format == record_format ? old.words == counts
                                                             : old.words_of(existing.stored) == words->counts);
        // The same document again (an UPDATE writing the same text, or changing what no field reads): rewriting it
        // would change nothing but cost the whole replacement.
        if (same_terms && old.rest_digest == rest) return true;
        document->doc.add_value(slot, encode_record(terms, rest, counts));
        if (same_terms) {
            // Only stored fields or values changed (a version, a price).
            replace_values_and_data(db->db, existing, document->doc);
            if (written != nullptr) *written = true;
            return true;
        }
        // The old words are read from the stored document's term list, before it is replaced.
        apply_difference(db->db, old.words_of(existing.stored), words->counts);
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
        if (existing.id == 0 || existing.has_duplicates || old.format != record_format) return true;
        if (applied != nullptr) *applied = true;
        if (!rest->doc.get_value(slot).empty()) rest->doc.remove_value(slot);
        const std::string digest = rest_digest(rest->doc, slot);
        if (old.rest_digest == digest) return true;
        // The terms stay, so the counts of their words still fit them.
        rest->doc.add_value(slot, encode_record(old.terms_digest, digest, old.words));
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
        Indexed existing = indexed(db->db, unique, slot);
        apply_difference(db->db, existing.record.words_of(existing.stored), {});
        db->db.delete_document(unique);
        return true;
    }, loses_batch);
}

bool cx_database_spellings(cx_database *db, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require_open(db);
        WordCounts counts;
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
        WordCounts counts;
        for (auto term = db->db.allterms_begin(start); term != db->db.allterms_end(start); ++term) {
            if (limit != 0 && counts.size() >= limit) break;
            counts[*term] += term.get_termfreq();
        }
        cx::copy_out(encode_words(counts), out, out_len);
        return true;
    });
}

} // extern "C"
