#include "CXInternal.hpp"
#include "CXProximityReranker.hpp"
#include "CXServerProximityReranker.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>

namespace {

// Ends a match that runs past its deadline. Xapian's own time limit only stops checking for more matches, which
// would silently cut totals and facet counts short: a search that runs out of time fails instead.
class DeadlineDecider : public Xapian::MatchDecider {
public:
    explicit DeadlineDecider(double seconds)
        : seconds(seconds),
          deadline(std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))) {}

    bool operator()(const Xapian::Document &) const override {
        // Reading the clock every candidate would cost more than deciding; every 64th keeps the overshoot tiny.
        if ((++calls & 63) == 0 && std::chrono::steady_clock::now() > deadline) {
            throw cx::misuse{CX_ERR_TIME_LIMIT, "TimeLimitError",
                             "the search ran longer than its time limit of " + std::to_string(seconds) + " s"};
        }
        return true;
    }

private:
    double seconds;
    std::chrono::steady_clock::time_point deadline;
    mutable unsigned long calls = 0;
};

Xapian::BM25Weight weighting(const cx_bm25_params *params) {
    if (params == nullptr) return Xapian::BM25Weight();
    return Xapian::BM25Weight(params->k1, params->k2, params->k3, params->b, params->min_normlen);
}

bool starts_free_text(unsigned char byte) {
    return (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') || byte >= 0x80;
}

// Free-text terms as Xapian's term generator writes them: a word as is, or its stem after the `Z` marker. Any other
// upper-case first letter is a prefix (a field copy, a filter, an id), which expansion must never add.
bool is_free_text_term(const std::string &term, bool stemmed_only) {
    if (term.empty()) return false;
    if (term[0] == 'Z') return term.size() > 1 && starts_free_text(static_cast<unsigned char>(term[1]));
    return !stemmed_only && starts_free_text(static_cast<unsigned char>(term[0]));
}

class FreeTextDecider : public Xapian::ExpandDecider {
public:
    explicit FreeTextDecider(bool stemmed_only) : stemmed_only_(stemmed_only) {}
    bool operator()(const std::string &term) const override { return is_free_text_term(term, stemmed_only_); }

private:
    bool stemmed_only_;
};

// Accepts one document of a search over `shards` shards. A match decider sees each shard's own document ids (the
// combined id D is shard (D-1) mod n, local id (D-1) div n + 1), so the document is recognised by its local id and,
// among the shards' documents with that id, by its data.
class OneDocumentDecider : public Xapian::MatchDecider {
public:
    OneDocumentDecider(Xapian::docid docid, size_t shards, std::string data)
        : local_(Xapian::docid((docid - 1) / std::max<size_t>(shards, 1) + 1)), data_(std::move(data)) {}
    bool operator()(const Xapian::Document &document) const override {
        return document.get_docid() == local_ && document.get_data() == data_;
    }

private:
    Xapian::docid local_;
    std::string data_;
};

void require_valid(const cx_expansion_options &options) {
    if (options.documents == 0) cx::invalid_argument("expansion needs at least 1 document to learn terms from");
    if (options.terms == 0) cx::invalid_argument("expansion needs room for at least 1 term");
    if (!(options.weight > 0) || !std::isfinite(options.weight)) {
        cx::invalid_argument("expansion weight " + std::to_string(options.weight) + " must be a finite number above 0");
    }
}

// Pseudo-relevance feedback: the best documents of `query` stand in for relevance judgements, and the terms that
// best tell them apart from the collection are added, scaled so the added terms weigh `options.weight` times the
// original free-text terms as a whole (many added terms must not drown a short query).
Xapian::Query expanded(Xapian::Enquire &enquire, const Xapian::Query &query, const cx_expansion_options &options,
                       const Xapian::MatchDecider *deadline, cx_mset &result) {
    // The query's own words are counted in the feedback query when there is one: the searched query may carry a
    // proximity boost, whose unstemmed copies of the words must not count twice.
    const Xapian::Query &words = options.feedback_query != nullptr ? options.feedback_query->query : query;
    size_t original = 0;
    for (Xapian::TermIterator term = words.get_unique_terms_begin(); term != words.get_unique_terms_end(); ++term) {
        if (is_free_text_term(*term, false)) ++original;
    }
    if (original < options.minimum_terms) return query;
    enquire.set_query(options.feedback_query != nullptr ? options.feedback_query->query : query);
    Xapian::MSet top = enquire.get_mset(0, options.documents, 0, nullptr, deadline);
    if (top.empty()) return query;
    Xapian::RSet relevant;
    for (Xapian::MSetIterator hit = top.begin(); hit != top.end(); ++hit) relevant.add_document(*hit);
    FreeTextDecider decider(options.stemmed_only);
    // Exact term frequencies: Xapian otherwise estimates them over shards, and a sharded index would expand differently.
    Xapian::ESet eset = enquire.get_eset(options.terms, relevant, Xapian::Enquire::USE_EXACT_TERMFREQ, &decider);
    if (eset.empty()) return query;
    double scale = options.weight * double(std::max<size_t>(original, 1)) / double(eset.size());
    std::vector<Xapian::Query> added;
    for (Xapian::ESetIterator term = eset.begin(); term != eset.end(); ++term) {
        added.emplace_back(*term);
        result.expansion.push_back(cx_expansion_term{*term, term.get_weight(), scale});
    }
    Xapian::Query expansion(Xapian::Query::OP_SCALE_WEIGHT,
                            Xapian::Query(Xapian::Query::OP_OR, added.begin(), added.end()), scale);
    // AND_MAYBE rather than OR: as good on the judged sets (docs/benchmarks.md), and what matches stays what the user asked for.
    return Xapian::Query(Xapian::Query::OP_AND_MAYBE, query, expansion);
}

// The terms whose weight adds up on its own: every term of the query except those found only under OP_NEAR (the
// proximity boost), whose weight counts only when the words are near each other.
void weighted_terms(const Xapian::Query &query, std::vector<std::string> &terms) {
    if (query.get_type() == Xapian::Query::OP_NEAR) return;
    if (query.get_type() == Xapian::Query::LEAF_TERM) {
        for (Xapian::TermIterator term = query.get_terms_begin(); term != query.get_terms_end(); ++term) {
            terms.push_back(*term);
        }
        return;
    }
    for (size_t index = 0; index < query.get_num_subqueries(); ++index) weighted_terms(query.get_subquery(index), terms);
}

// Each matched term's part of each hit's weight: BM25 (with k2 = 0) adds up per term, so a one-term search
// restricted to the hit gives that term's part; expansion terms are scaled as in the query. `enquire` holds the
// query without the proximity boost, whose terms are left out anyway.
void explain_hits(Xapian::Database &db, Xapian::Enquire &enquire, const Xapian::Weight &weighting, cx_mset &result) {
    std::vector<std::string> counted;
    weighted_terms(enquire.get_query(), counted);
    for (const cx_hit &hit : result.hits) {
        std::vector<cx_hit_term> terms;
        Xapian::Document document = db.get_document(hit.docid);
        for (Xapian::TermIterator term = enquire.get_matching_terms_begin(hit.docid);
             term != enquire.get_matching_terms_end(hit.docid); ++term) {
            if (std::find(counted.begin(), counted.end(), *term) == counted.end()) continue;
            Xapian::Enquire single(db);
            single.set_query(Xapian::Query(*term));
            single.set_weighting_scheme(weighting);
            OneDocumentDecider only(hit.docid, db.size(), document.get_data());
            Xapian::MSet one = single.get_mset(0, 1, 0, nullptr, &only);
            double weight = one.empty() ? 0 : one.begin().get_weight();
            for (const auto &added : result.expansion) {
                if (added.term == *term) weight *= added.scale;
            }
            Xapian::TermIterator position = document.termlist_begin();
            position.skip_to(*term);
            Xapian::termcount wdf = position != document.termlist_end() && *position == *term ? position.get_wdf() : 0;
            terms.push_back(cx_hit_term{*term, wdf, weight});
        }
        result.hit_terms.push_back(std::move(terms));
    }
}

// One attempt at the whole search; a DatabaseModifiedError anywhere in it makes the caller reopen and retry,
// so every read from the database (documents included) happens here.
// `shards`: the handles of cx::parallel_shards, to read the page's documents from several remote shards at once.
std::unique_ptr<cx_mset> run_search(Xapian::Database &db, const Xapian::Query &query, const cx_search_options &options,
                                    bool has_remote, const std::vector<Xapian::Database> *shards) {
    Xapian::Enquire enquire(db);
    enquire.set_query(query);
    enquire.set_weighting_scheme(weighting(options.bm25));
    switch (options.sort) {
    case CX_SORT_RELEVANCE:
        enquire.set_sort_by_relevance();
        break;
    case CX_SORT_VALUE_ASCENDING:
        enquire.set_sort_by_value(options.sort_slot, false);
        break;
    case CX_SORT_VALUE_DESCENDING:
        enquire.set_sort_by_value(options.sort_slot, true);
        break;
    }
    // release() hands each spy to the enquire, whose internals (kept alive by the MSet) delete it.
    std::vector<const Xapian::ValueCountMatchSpy *> spies;
    for (size_t index = 0; index < options.facet_slot_count; ++index) {
        auto *spy = new Xapian::ValueCountMatchSpy(options.facet_slots[index]);
        enquire.add_matchspy(spy->release());
        spies.push_back(spy);
    }

    auto result = std::make_unique<cx_mset>();
    // One deadline for the whole search, feedback pass included.
    std::unique_ptr<DeadlineDecider> deadline;
    // The remote backend refuses match deciders (UnimplementedError): there each server's operation timeout bounds
    // the search instead.
    if (options.time_limit > 0 && !has_remote) deadline = std::make_unique<DeadlineDecider>(options.time_limit);
    if (options.expansion != nullptr) {
        // A separate enquire: the feedback pass must not feed the match spies (facet counts).
        Xapian::Enquire feedback(db);
        feedback.set_weighting_scheme(weighting(options.bm25));
        enquire.set_query(expanded(feedback, query, *options.expansion, deadline.get(), *result));
    }
    const cx_proximity_options *proximity = options.sort == CX_SORT_RELEVANCE ? options.proximity : nullptr;
    result->executed = enquire.get_query();
    std::vector<std::string> words;
    if (proximity != nullptr) {
        cx::require(proximity->words, "proximity words query");
        cx::require_valid_proximity(proximity->window, proximity->weight);
        words = cx::proximity_words(proximity->words->query);
        result->boosted = true;
        result->proximity_words = proximity->words->query;
        result->proximity_window = proximity->window;
        result->proximity_weight = proximity->weight;
    }
    if (words.size() < 2 || options.offset >= proximity->depth) {
        // Past the re-ranked matches the order is the query's own: no positions to read.
        result->mset = enquire.get_mset(options.offset, options.limit, options.check_at_least, nullptr, deadline.get());
        for (Xapian::MSetIterator hit = result->mset.begin(); hit != result->mset.end(); ++hit) {
            result->hits.push_back(cx_hit{*hit, hit.get_rank(), hit.get_weight(), hit.get_percent()});
        }
    } else {
        uint32_t end = options.limit > UINT32_MAX - options.offset ? UINT32_MAX : options.offset + options.limit;
        // One match past the depth, to see whether the last candidate is tied with the first one left out.
        uint32_t fetched = std::max(end, proximity->depth == UINT32_MAX ? UINT32_MAX : proximity->depth + 1);
        // Over remote shards each match comes with its collapse key, so collapsing on the id slot (one document
        // per id term: nothing is collapsed) names the candidates to the servers without reading their documents,
        // a round trip each. Collapsing makes every server send `check_at_least` matches rather than `fetched`:
        // kept to searches that look at few (facet counts look at every match).
        bool ids_collapsed = has_remote && proximity->has_id_slot && options.check_at_least <= cx::collapsed_matches_limit;
        if (ids_collapsed) enquire.set_collapse_key(proximity->id_slot, 1);
        result->mset = enquire.get_mset(0, fetched, options.check_at_least, nullptr, deadline.get());
        cx_bm25_params params = options.bm25 != nullptr ? *options.bm25 : cx_bm25_default_params();
        std::vector<cx_hit> order;
        bool reranked = false;
        if (has_remote && proximity->has_id_slot) {
            cx::ServerProximityReranker reranker(db, shards, words, *proximity, params);
            reranked = reranker.rerank(result->mset, end, ids_collapsed, order);
            result->reweighed += reranker.reweighed();
        }
        if (!reranked) {
            cx::ProximityReranker reranker(db, words, *proximity, params, has_remote);
            order = reranker.rerank(result->mset, end);
            result->reweighed += reranker.reweighed();
        }
        for (size_t index = options.offset; index < order.size() && index < end; ++index) {
            result->hits.push_back(order[index]);
        }
    }
    // Every hit of the page is a match, so its document exists: read without Database::get_document's check.
    std::vector<Xapian::docid> page;
    page.reserve(result->hits.size());
    for (const cx_hit &hit : result->hits) page.push_back(hit.docid);
    result->data = cx::documents_read(db, shards, page, [](const Xapian::Document &document) { return document.get_data(); });
    if (options.explain) explain_hits(db, enquire, weighting(options.bm25), *result);
    for (const auto *spy : spies) {
        cx_mset_facet facet;
        for (Xapian::TermIterator value = spy->values_begin(); value != spy->values_end(); ++value) {
            facet.values.emplace_back(*value, value.get_termfreq());
        }
        result->facets.push_back(std::move(facet));
    }
    return result;
}

} // namespace

extern "C" {

cx_bm25_params cx_bm25_default_params(void) noexcept {
    // Mirrors BM25Weight()'s documented defaults; BM25Weight has no getters to read them back.
    return cx_bm25_params{1, 0, 1, 0.5, 0.5};
}

cx_mset *cx_database_search(cx_database *db, const cx_query *query, const cx_search_options *options,
                            cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_mset *>(nullptr), [&] {
        cx::require_open(db);
        cx::require(query, "query");
        cx::require(options, "search options");
        if (options->sort != CX_SORT_RELEVANCE && options->sort != CX_SORT_VALUE_ASCENDING &&
            options->sort != CX_SORT_VALUE_DESCENDING) {
            cx::invalid_argument("sort order " + std::to_string(int(options->sort)) +
                                 " is unknown; use CX_SORT_RELEVANCE, CX_SORT_VALUE_ASCENDING or CX_SORT_VALUE_DESCENDING");
        }
        if (options->sort != CX_SORT_RELEVANCE && options->sort_slot == Xapian::BAD_VALUENO) {
            cx::invalid_argument("sorting by value needs a sort slot; cx_bad_valueno holds no values");
        }
        if (options->expansion != nullptr) require_valid(*options->expansion);
        if (options->proximity != nullptr) {
            cx::require(options->proximity->words, "proximity words query");
            if (options->proximity->depth == 0) cx::invalid_argument("a proximity boost re-ranks at least 1 match; give a depth of 1 or more");
        }
        if (options->facet_slot_count > 0 && options->facet_slots == nullptr) {
            cx::invalid_argument("facet slots are NULL but their count is " + std::to_string(options->facet_slot_count));
        }
        unsigned retries = options->no_retry ? 0
                           : options->max_retries == 0 ? cx::default_max_retries
                                                       : options->max_retries;
        const std::vector<Xapian::Database> *shards = cx::parallel_shards(*db);
        return cx::read_retrying(*db, retries, [&] { return run_search(db->db, query->query, *options, db->has_remote, shards); })
            .release();
    });
}

void cx_mset_free(cx_mset *mset) noexcept {
    try {
        delete mset;
    } catch (...) {
    }
}

size_t cx_mset_size(const cx_mset *mset) noexcept {
    return mset == nullptr ? 0 : mset->hits.size();
}

size_t cx_mset_reweighed_documents(const cx_mset *mset) noexcept {
    return mset == nullptr ? 0 : mset->reweighed;
}

uint32_t cx_mset_matches_estimated(const cx_mset *mset) noexcept {
    return mset == nullptr ? 0 : mset->mset.get_matches_estimated();
}

uint32_t cx_mset_matches_lower_bound(const cx_mset *mset) noexcept {
    return mset == nullptr ? 0 : mset->mset.get_matches_lower_bound();
}

uint32_t cx_mset_matches_upper_bound(const cx_mset *mset) noexcept {
    return mset == nullptr ? 0 : mset->mset.get_matches_upper_bound();
}

bool cx_mset_hit(const cx_mset *mset, size_t index, cx_hit *out, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(mset, "result set");
        cx::require(out, "output hit");
        if (index >= mset->hits.size()) {
            cx::out_of_range("hit " + std::to_string(index) + " does not exist; this page has " +
                             std::to_string(mset->hits.size()) + " hits");
        }
        *out = mset->hits[index];
        return true;
    });
}

bool cx_mset_hit_data(const cx_mset *mset, size_t index, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require(mset, "result set");
        if (index >= mset->data.size()) {
            cx::out_of_range("hit " + std::to_string(index) + " does not exist; this page has " +
                             std::to_string(mset->data.size()) + " hits");
        }
        cx::copy_out(mset->data[index], out, out_len);
        return true;
    });
}

bool cx_mset_query_description(const cx_mset *mset, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require(mset, "result set");
        Xapian::Query executed = mset->boosted ? cx::with_proximity(mset->executed, mset->proximity_words, mset->proximity_window,
                                                                    mset->proximity_weight)
                                               : mset->executed;
        cx::copy_out(executed.get_description(), out, out_len);
        return true;
    });
}

size_t cx_mset_expansion_term_count(const cx_mset *mset) noexcept {
    return mset == nullptr ? 0 : mset->expansion.size();
}

bool cx_mset_expansion_term(const cx_mset *mset, size_t index, char **out, size_t *out_len, double *expand_weight,
                            double *scale, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    if (expand_weight != nullptr) *expand_weight = 0;
    if (scale != nullptr) *scale = 0;
    return cx::guard(err, false, [&] {
        cx::require(mset, "result set");
        if (index >= mset->expansion.size()) {
            cx::out_of_range("expansion term " + std::to_string(index) + " does not exist; expansion added " +
                             std::to_string(mset->expansion.size()) + " terms");
        }
        const cx_expansion_term &term = mset->expansion[index];
        cx::copy_out(term.term, out, out_len);
        if (expand_weight != nullptr) *expand_weight = term.expand_weight;
        if (scale != nullptr) *scale = term.scale;
        return true;
    });
}

size_t cx_mset_hit_term_count(const cx_mset *mset, size_t hit_index, cx_error **err) noexcept {
    return cx::guard(err, size_t(0), [&] {
        cx::require(mset, "result set");
        if (hit_index >= mset->hit_terms.size()) {
            cx::out_of_range("hit " + std::to_string(hit_index) + " has no explanation; this page explained " +
                             std::to_string(mset->hit_terms.size()) + " hits (search with explain set)");
        }
        return mset->hit_terms[hit_index].size();
    });
}

bool cx_mset_hit_term(const cx_mset *mset, size_t hit_index, size_t term_index, char **out, size_t *out_len,
                      uint32_t *wdf, double *weight, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    if (wdf != nullptr) *wdf = 0;
    if (weight != nullptr) *weight = 0;
    return cx::guard(err, false, [&] {
        cx::require(mset, "result set");
        if (hit_index >= mset->hit_terms.size()) {
            cx::out_of_range("hit " + std::to_string(hit_index) + " has no explanation; this page explained " +
                             std::to_string(mset->hit_terms.size()) + " hits (search with explain set)");
        }
        const auto &terms = mset->hit_terms[hit_index];
        if (term_index >= terms.size()) {
            cx::out_of_range("term " + std::to_string(term_index) + " does not exist; hit " + std::to_string(hit_index) +
                             " matched " + std::to_string(terms.size()) + " terms");
        }
        cx::copy_out(terms[term_index].term, out, out_len);
        if (wdf != nullptr) *wdf = terms[term_index].wdf;
        if (weight != nullptr) *weight = terms[term_index].weight;
        return true;
    });
}

size_t cx_mset_facet_value_count(const cx_mset *mset, size_t facet_index, cx_error **err) noexcept {
    return cx::guard(err, size_t(0), [&] {
        cx::require(mset, "result set");
        if (facet_index >= mset->facets.size()) {
            cx::out_of_range("facet " + std::to_string(facet_index) + " does not exist; the search counted " +
                             std::to_string(mset->facets.size()) + " facet slots");
        }
        return mset->facets[facet_index].values.size();
    });
}

bool cx_mset_facet_value(const cx_mset *mset, size_t facet_index, size_t value_index,
                         char **out, size_t *out_len, uint32_t *frequency, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    if (frequency != nullptr) *frequency = 0;
    return cx::guard(err, false, [&] {
        cx::require(mset, "result set");
        if (facet_index >= mset->facets.size()) {
            cx::out_of_range("facet " + std::to_string(facet_index) + " does not exist; the search counted " +
                             std::to_string(mset->facets.size()) + " facet slots");
        }
        const auto &values = mset->facets[facet_index].values;
        if (value_index >= values.size()) {
            cx::out_of_range("facet value " + std::to_string(value_index) + " does not exist; facet " +
                             std::to_string(facet_index) + " has " + std::to_string(values.size()) + " values");
        }
        cx::copy_out(values[value_index].first, out, out_len);
        if (frequency != nullptr) *frequency = values[value_index].second;
        return true;
    });
}

bool cx_mset_snippet(const cx_mset *mset, const char *text, size_t text_len, const cx_snippet_options *options,
                     char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::require(mset, "result set");
        cx::require(options, "snippet options");
        std::string body = cx::bytes(text, text_len, "text");
        size_t length = options->length == 0 ? 200 : options->length;
        unsigned flags = options->flags == 0
                             ? unsigned(Xapian::MSet::SNIPPET_BACKGROUND_MODEL | Xapian::MSet::SNIPPET_EXHAUSTIVE)
                             : options->flags;
        const Xapian::Stem *stemmer = options->stemmer != nullptr ? &options->stemmer->stem : &mset->snippet_stemmer;
        const char *language = options->stem_language == nullptr ? "" : options->stem_language;
        if (options->stemmer == nullptr && (!mset->has_snippet_stemmer || mset->snippet_language != language)) {
            mset->snippet_stemmer = cx::stemmer(language);
            mset->snippet_language = language;
            mset->has_snippet_stemmer = true;
        }
        std::string snippet = mset->mset.snippet(
            body, length, *stemmer, flags,
            cx::bytes(options->highlight_start, options->highlight_start_len, "highlight start"),
            cx::bytes(options->highlight_end, options->highlight_end_len, "highlight end"),
            cx::bytes(options->omit, options->omit_len, "omission marker"));
        cx::copy_out(snippet, out, out_len);
        return true;
    });
}

} // extern "C"
