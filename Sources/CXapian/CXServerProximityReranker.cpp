#include "CXServerProximityReranker.hpp"
#include "CXProximityReranker.hpp"
#include "CXInternal.hpp"

#include <unordered_map>

namespace cx {

// Each pair of consecutive words becomes OP_NEAR of the two under an OP_FILTER by the candidates' id terms, scaled by
// the pair's share of the weight: the matcher then checks positions only in the candidates (the filter and the two
// words form one AND, and the window is tested after it), and a near pair weighs what the local reading
// adds for it, BM25 of each word in the document from the whole index's statistics. The pairs are OR-ed, so a
// candidate's weight in this match is its boost. A word in two pairs is counted twice in the query: with k3 = 0
// BM25's query-frequency factor is 1 whatever that count, as for a word given once; k2 = 0 as in the local reading.
bool ServerProximityReranker::rerank(const Xapian::MSet &base, size_t end, bool ids_collapsed, std::vector<cx_hit> &order) {
    std::vector<cx_hit> ranked = base_order(base);
    size_t depth = candidate_count(ranked, options_.depth);
    if (depth == 0 || words_.size() < 2 || end == 0) {
        order = std::move(ranked);
        return true;
    }
    std::vector<std::string> names;
    if (ids_collapsed) {
        for (size_t index = 0; index < depth; ++index) names.push_back(base[Xapian::doccount(index)].get_collapse_key());
    } else {
        std::vector<Xapian::docid> docids;
        for (size_t index = 0; index < depth; ++index) docids.push_back(*base[Xapian::doccount(index)]);
        Xapian::valueno slot = options_.id_slot;
        names = documents_read(db_, shards_, docids, [slot](const Xapian::Document &document) { return document.get_value(slot); });
    }
    std::vector<Xapian::Query> ids;
    ids.reserve(depth);
    std::unordered_map<Xapian::docid, size_t> candidates;
    for (size_t index = 0; index < depth; ++index) {
        if (names[index].empty()) return false;
        ids.emplace_back(std::move(names[index]));
        candidates.emplace(ranked[index].docid, index);
    }
    Xapian::Query restricted(Xapian::Query::OP_OR, ids.begin(), ids.end());
    double share = options_.weight / double(words_.size() - 1);
    std::vector<Xapian::Query> pairs;
    for (size_t pair = 0; pair + 1 < words_.size(); ++pair) {
        Xapian::Query words[] = {Xapian::Query(words_[pair]), Xapian::Query(words_[pair + 1])};
        Xapian::Query near(Xapian::Query::OP_NEAR, std::begin(words), std::end(words), options_.window);
        pairs.emplace_back(Xapian::Query::OP_SCALE_WEIGHT, Xapian::Query(Xapian::Query::OP_FILTER, near, restricted), share);
    }
    Xapian::Enquire enquire(db_);
    enquire.set_query(Xapian::Query(Xapian::Query::OP_OR, pairs.begin(), pairs.end()));
    enquire.set_weighting_scheme(Xapian::BM25Weight(params_.k1, 0, 0, params_.b, params_.min_normlen));
    Xapian::MSet boosts = enquire.get_mset(0, Xapian::doccount(depth));
    for (Xapian::MSetIterator hit = boosts.begin(); hit != boosts.end(); ++hit) {
        auto candidate = candidates.find(*hit);
        if (candidate != candidates.end()) ranked[candidate->second].weight += hit.get_weight();
    }
    reweighed_ += depth;
    sort_candidates(ranked, depth);
    order = std::move(ranked);
    return true;
}

} // namespace cx
