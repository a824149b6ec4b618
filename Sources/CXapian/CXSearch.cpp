#include "CXInternal.hpp"

#include <chrono>
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

// One attempt at the whole search; a DatabaseModifiedError anywhere in it makes the caller reopen and retry,
// so every read from the database (documents included) happens here.
std::unique_ptr<cx_mset> run_search(Xapian::Database &db, const Xapian::Query &query, const cx_search_options &options) {
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
    if (options.time_limit > 0) {
        DeadlineDecider decider(options.time_limit);
        result->mset = enquire.get_mset(options.offset, options.limit, options.check_at_least, nullptr, &decider);
    } else {
        result->mset = enquire.get_mset(options.offset, options.limit, options.check_at_least);
    }
    for (Xapian::MSetIterator hit = result->mset.begin(); hit != result->mset.end(); ++hit) {
        result->hits.push_back(cx_hit{*hit, hit.get_rank(), hit.get_weight(), hit.get_percent()});
        result->data.push_back(hit.get_document().get_data());
    }
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
        if (options->facet_slot_count > 0 && options->facet_slots == nullptr) {
            cx::invalid_argument("facet slots are NULL but their count is " + std::to_string(options->facet_slot_count));
        }
        unsigned retries = options->no_retry ? 0
                           : options->max_retries == 0 ? cx::default_max_retries
                                                       : options->max_retries;
        return cx::read_retrying(*db, retries, [&] { return run_search(db->db, query->query, *options); })
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
        std::string snippet = mset->mset.snippet(
            body, length, cx::stemmer(options->stem_language), flags,
            cx::bytes(options->highlight_start, options->highlight_start_len, "highlight start"),
            cx::bytes(options->highlight_end, options->highlight_end_len, "highlight end"),
            cx::bytes(options->omit, options->omit_len, "omission marker"));
        cx::copy_out(snippet, out, out_len);
        return true;
    });
}

} // extern "C"
