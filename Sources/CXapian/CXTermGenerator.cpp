#include "CXInternal.hpp"

namespace {

/// Indexes `source` without a prefix straight into `target` and, with `words`, counts each unprefixed word once per
/// occurrence: by how much its wdf rose. (Going through a scratch document, as prefixed fields do, costs more here:
/// copying each occurrence into the target is dearer than reading the target's words before and after.)
void index_unprefixed(Xapian::TermGenerator &terms, const Xapian::Document &target, const std::string &source,
                      Xapian::termcount wdf_increment, bool with_positions, cx_spelling_words *words) {
    std::vector<std::pair<std::string, Xapian::termcount>> before;
    if (words != nullptr) {
        for (auto term = target.termlist_begin(); term != target.termlist_end(); ++term) {
            std::string name = *term;
            if (cx::is_unprefixed_word(name)) before.emplace_back(std::move(name), term.get_wdf());
        }
    }
    if (with_positions) {
        terms.index_text(source, wdf_increment);
    } else {
        terms.index_text_without_positions(source, wdf_increment);
    }
    if (words == nullptr) return;
    auto previous = before.begin();
    for (auto term = target.termlist_begin(); term != target.termlist_end(); ++term) {
        const std::string name = *term;
        if (!cx::is_unprefixed_word(name)) continue;
        while (previous != before.end() && previous->first < name) ++previous;
        const Xapian::termcount earlier = previous != before.end() && previous->first == name ? previous->second : 0;
        const Xapian::termcount rise = term.get_wdf() - earlier;
        if (rise >= wdf_increment) words->counts[name] += rise / wdf_increment;
    }
}

} // namespace

extern "C" {

cx_term_generator *cx_term_generator_new(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_term_generator *>(nullptr), [&] {
        return new cx_term_generator();
    });
}

void cx_term_generator_free(cx_term_generator *generator) noexcept {
    try {
        delete generator;
    } catch (...) {
    }
}

bool cx_term_generator_set_stemmer(cx_term_generator *generator, const char *language, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator")->generator.set_stemmer(cx::stemmer(language));
        return true;
    });
}

bool cx_term_generator_set_remembering_stemmer(cx_term_generator *generator, const char *language, size_t capacity,
                                              cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator")->generator.set_stemmer(cx::remembering(cx::stemmer(language), capacity));
        return true;
    });
}

bool cx_term_generator_set_stopper(cx_term_generator *generator, const cx_stopper *stopper, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator")->generator.set_stopper(cx::make_stopper(stopper));
        return true;
    });
}

bool cx_term_generator_set_spelling_database(cx_term_generator *generator, cx_writable_database *db,
                                             cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator");
        // set_flags computes (flags & mask) ^ toggle: the mask keeps every other flag as it was.
        const auto keep_others = Xapian::TermGenerator::flags(~unsigned(Xapian::TermGenerator::FLAG_SPELLING));
        if (db == nullptr) {
            generator->generator.set_flags(Xapian::TermGenerator::flags(0), keep_others);
            generator->generator.set_database(Xapian::WritableDatabase());
            return true;
        }
        generator->generator.set_database(cx::require_open(db)->db);
        generator->generator.set_flags(Xapian::TermGenerator::FLAG_SPELLING, keep_others);
        return true;
    });
}

bool cx_term_generator_set_cjk_ngrams(cx_term_generator *generator, bool enabled, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator");
        const auto keep_others = Xapian::TermGenerator::flags(~unsigned(Xapian::TermGenerator::FLAG_CJK_NGRAM));
        generator->generator.set_flags(enabled ? Xapian::TermGenerator::FLAG_CJK_NGRAM : Xapian::TermGenerator::flags(0),
                                       keep_others);
        return true;
    });
}

bool cx_term_generator_set_document(cx_term_generator *generator, cx_document *document, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator");
        cx::require(document, "document");
        // Xapian::Document is a reference-counted handle: the generator and the caller share one document.
        generator->generator.set_document(document->doc);
        generator->generator.set_termpos(0);
        return true;
    });
}

bool cx_term_generator_index_text(cx_term_generator *generator, const char *text, size_t text_len,
                                  uint32_t wdf_increment, const char *prefix, size_t prefix_len,
                                  bool with_positions, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator");
        std::string words = cx::bytes(text, text_len, "text");
        std::string term_prefix = cx::bytes(prefix, prefix_len, "prefix");
        if (with_positions) {
            generator->generator.index_text(words, wdf_increment, term_prefix);
        } else {
            generator->generator.index_text_without_positions(words, wdf_increment, term_prefix);
        }
        return true;
    });
}

bool cx_term_generator_index_field(cx_term_generator *generator, const char *text, size_t text_len,
                                   uint32_t wdf_increment, const char *prefix, size_t prefix_len, bool with_positions,
                                   cx_spelling_words *words, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator");
        if (wdf_increment == 0) cx::invalid_argument("wdf_increment is 0; a field's words must count");
        std::string source = cx::bytes(text, text_len, "text");
        std::string term_prefix = cx::bytes(prefix, prefix_len, "prefix");
        Xapian::TermGenerator &terms = generator->generator;
        Xapian::Document target = terms.get_document();
        if (term_prefix.empty()) {
            index_unprefixed(terms, target, source, wdf_increment, with_positions, words);
            return true;
        }
        const Xapian::termpos start = terms.get_termpos();

        // Tokenising and stemming are most of index_text's work: done once, into the scratch document, where each
        // occurrence counts 1 and positions start after 0. Two index_text calls (unprefixed, then prefixed) would
        // give the unprefixed copy positions start + p and the prefixed copy start + span + p, both with the same
        // terms: the copies below write exactly that document.
        Xapian::Document &scratch = generator->scratch;
        scratch.clear_terms();
        terms.set_document(scratch);
        terms.set_termpos(0);
        try {
            if (with_positions) {
                terms.index_text(source, 1);
            } else {
                terms.index_text_without_positions(source, 1);
            }
        } catch (...) {
            terms.set_document(target);
            terms.set_termpos(start);
            throw;
        }
        const Xapian::termpos span = terms.get_termpos();
        terms.set_document(target);
        terms.set_termpos(start);

        std::string prefixed_name;
        for (auto term = scratch.termlist_begin(); term != scratch.termlist_end(); ++term) {
            const std::string name = *term;
            const Xapian::termcount occurrences = term.get_wdf();
            // A stem is Z + word; its prefixed copy is Z + prefix + word.
            if (name[0] == 'Z') {
                prefixed_name.assign(1, 'Z').append(term_prefix).append(name, 1, std::string::npos);
            } else {
                prefixed_name.assign(term_prefix).append(name);
            }
            Xapian::termcount positioned = 0;
            for (auto position = term.positionlist_begin(); position != term.positionlist_end(); ++position) {
                target.add_posting(name, start + *position, wdf_increment);
                target.add_posting(prefixed_name, start + span + *position, 1);
                ++positioned;
            }
            // Occurrences without a position: stems, CJK bigrams, or a field indexed without positions.
            if (occurrences > positioned) {
                target.add_term(name, (occurrences - positioned) * wdf_increment);
                target.add_term(prefixed_name, occurrences - positioned);
            }
            if (words != nullptr && cx::is_unprefixed_word(name)) words->counts[name] += occurrences;
        }
        terms.set_termpos(start + 2 * span);
        return true;
    });
}

bool cx_term_generator_increase_termpos(cx_term_generator *generator, uint32_t delta, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(generator, "term generator")->generator.increase_termpos(delta);
        return true;
    });
}

bool cx_term_generator_get_termpos(cx_term_generator *generator, uint32_t *out, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        auto position = cx::require(generator, "term generator")->generator.get_termpos();
        if (out != nullptr) *out = position;
        return true;
    });
}

bool cx_term_generator_align_termpos(cx_term_generator *generator, uint32_t gap, uint32_t alignment,
                                     cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        auto &terms = cx::require(generator, "term generator")->generator;
        const uint64_t current = terms.get_termpos();
        uint64_t next = current + gap;
        if (alignment > 1) next = (next + alignment - 1) / alignment * alignment;
        if (next > UINT32_MAX) {
            terms.increase_termpos(gap);
        } else {
            terms.set_termpos(Xapian::termpos(next));
        }
        return true;
    });
}

} // extern "C"
