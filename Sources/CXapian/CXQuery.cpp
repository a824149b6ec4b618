#include "CXInternal.hpp"

#include <algorithm>
#include <cmath>

namespace {

bool is_combining_op(int op) {
    switch (op) {
    case Xapian::Query::OP_AND:
    case Xapian::Query::OP_OR:
    case Xapian::Query::OP_AND_NOT:
    case Xapian::Query::OP_XOR:
    case Xapian::Query::OP_AND_MAYBE:
    case Xapian::Query::OP_FILTER:
        return true;
    default:
        return false;
    }
}

} // namespace

namespace cx {

std::vector<std::string> proximity_words(const Xapian::Query &words) {
    std::vector<std::string> ordered;
    for (Xapian::TermIterator term = words.get_terms_begin(); term != words.get_terms_end(); ++term) {
        const std::string &word = *term;
        auto first = static_cast<unsigned char>(word.empty() ? 0 : word[0]);
        bool free_text = (first >= 'a' && first <= 'z') || (first >= '0' && first <= '9') || first >= 0x80;
        if (free_text && std::find(ordered.begin(), ordered.end(), word) == ordered.end()) ordered.push_back(word);
    }
    return ordered;
}

void require_valid_proximity(uint32_t window, double weight) {
    if (window < 2) invalid_argument("a proximity window of " + std::to_string(window) + " positions is too small; use 2 or more");
    if (!(weight > 0) || !std::isfinite(weight)) {
        invalid_argument("proximity weight " + std::to_string(weight) + " must be a finite number above 0");
    }
}

Xapian::Query with_proximity(const Xapian::Query &query, const Xapian::Query &words, uint32_t window, double weight,
                             size_t *pairs) {
    if (pairs != nullptr) *pairs = 0;
    require_valid_proximity(window, weight);
    std::vector<std::string> ordered = proximity_words(words);
    if (ordered.size() < 2) return query;
    // Each pair is its own optional part: an OR of OP_NEAR subqueries weighs documents differently when the
    // database has several shards (Xapian 1.4), a chain of AND_MAYBE does not.
    double share = weight / double(ordered.size() - 1);
    if (pairs != nullptr) *pairs = ordered.size() - 1;
    Xapian::Query boosted = query;
    for (size_t index = 0; index + 1 < ordered.size(); ++index) {
        Xapian::Query pair[] = {Xapian::Query(ordered[index]), Xapian::Query(ordered[index + 1])};
        Xapian::Query near(Xapian::Query::OP_NEAR, std::begin(pair), std::end(pair), window);
        boosted = Xapian::Query(Xapian::Query::OP_AND_MAYBE, boosted, Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, near, share));
    }
    return boosted;
}

} // namespace cx

extern "C" {

cx_query *cx_query_new_term(const char *term, size_t term_len, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] {
        return new cx_query{Xapian::Query(cx::bytes(term, term_len, "term"))};
    });
}

cx_query *cx_query_new_wildcard(const char *stem, size_t stem_len, uint32_t max_expansion, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] {
        return new cx_query{cx::prefix_wildcard(cx::bytes(stem, stem_len, "wildcard stem"), max_expansion)};
    });
}

cx_query *cx_query_new_match_all(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] { return new cx_query{Xapian::Query::MatchAll}; });
}

cx_query *cx_query_new_match_nothing(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] { return new cx_query{Xapian::Query::MatchNothing}; });
}

cx_query *cx_query_new_value_range(uint32_t slot, const char *lower, size_t lower_len,
                                   const char *upper, size_t upper_len, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] {
        if (slot == Xapian::BAD_VALUENO) cx::invalid_argument("value slot cx_bad_valueno holds no values");
        if (lower == nullptr && upper == nullptr) {
            cx::invalid_argument("both ends of the value range are open; give a lower or an upper bound");
        }
        if (lower == nullptr) {
            return new cx_query{Xapian::Query(Xapian::Query::OP_VALUE_LE, slot, std::string(upper, upper_len))};
        }
        if (upper == nullptr) {
            return new cx_query{Xapian::Query(Xapian::Query::OP_VALUE_GE, slot, std::string(lower, lower_len))};
        }
        return new cx_query{Xapian::Query(Xapian::Query::OP_VALUE_RANGE, slot, std::string(lower, lower_len),
                                          std::string(upper, upper_len))};
    });
}

cx_query *cx_query_combine(int op, const cx_query *const *queries, size_t count, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] {
        if (!is_combining_op(op)) {
            cx::invalid_argument("operator " + std::to_string(op) +
                                 " cannot combine queries; use cx_op_and, cx_op_or, cx_op_and_not, cx_op_xor, "
                                 "cx_op_and_maybe or cx_op_filter");
        }
        if (count == 0) cx::invalid_argument("no queries to combine; give at least one");
        if (queries == nullptr) cx::invalid_argument("query list is NULL");
        std::vector<Xapian::Query> parts;
        parts.reserve(count);
        for (size_t index = 0; index < count; ++index) {
            if (queries[index] == nullptr) cx::invalid_argument("query " + std::to_string(index) + " is NULL");
            parts.push_back(queries[index]->query);
        }
        auto combining = static_cast<Xapian::Query::op>(op);
        return new cx_query{Xapian::Query(combining, parts.begin(), parts.end())};
    });
}

cx_query *cx_query_with_proximity(const cx_query *query, const cx_query *words, uint32_t window, double weight,
                                  cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] {
        cx::require(query, "query");
        cx::require(words, "words query");
        return new cx_query{cx::with_proximity(query->query, words->query, window, weight)};
    });
}

bool cx_query_is_empty(const cx_query *query) noexcept {
    return query == nullptr || query->query.empty();
}

bool cx_query_description(const cx_query *query, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::copy_out(cx::require(query, "query")->query.get_description(), out, out_len);
        return true;
    });
}

void cx_query_free(cx_query *query) noexcept {
    delete query;
}

} // extern "C"
