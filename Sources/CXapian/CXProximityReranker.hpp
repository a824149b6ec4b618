#ifndef CX_PROXIMITY_RERANKER_HPP
#define CX_PROXIMITY_RERANKER_HPP

#include "CXapian.h"

#include <xapian.h>

#include <string>
#include <utility>
#include <vector>

namespace cx {

/// The hits of `base` in its order, as the re-rankers start from them.
std::vector<cx_hit> base_order(const Xapian::MSet &base);

/// How many of the best of `order` a boost of depth `depth` re-ranks: at most `depth`, fewer when the last of them is
/// tied with the first one left out (among equal weights the order is by document id, which differs between a
/// sharded index and one database, and the candidates must not).
size_t candidate_count(const std::vector<cx_hit> &order, uint32_t depth);

/// Puts the first `count` of `order` in the order of their weights (equal weights keep the query's order, as Xapian
/// orders them) and numbers their ranks again.
void sort_candidates(std::vector<cx_hit> &order, size_t count);

/// The proximity boost as a ranking component: re-ranks the best matches of a relevance-ordered match set by how
/// near the query's consecutive words lie in each document (see cx_proximity_options), reading positions only where
/// they can change the page asked for. Used once per search, on the thread running it.
class ProximityReranker {
  public:
    /// `words`: the query's words in order, unstemmed (their positions are read); `remote`: `db` has remote shards,
    /// where posting lists are not read forward.
    ProximityReranker(Xapian::Database &db, std::vector<std::string> words, const cx_proximity_options &options,
                      const cx_bm25_params &params, bool remote)
        : db_(db), words_(std::move(words)), options_(options), params_(params), remote_(remote) {}

    /// The matches of `base` in their new order, ranks renumbered over the re-ranked ones; only the first `end`
    /// places are final (a match that cannot reach them keeps its base weight and place).
    std::vector<cx_hit> rerank(const Xapian::MSet &base, size_t end);

    /// How many matches had their weight worked out again (their positions read) so far.
    size_t reweighed() const { return reweighed_; }

  private:
    Xapian::Database &db_;
    std::vector<std::string> words_;
    cx_proximity_options options_;
    cx_bm25_params params_;
    bool remote_;
    size_t reweighed_ = 0;
};

} // namespace cx

#endif
