#ifndef CX_SERVER_PROXIMITY_RERANKER_HPP
#define CX_SERVER_PROXIMITY_RERANKER_HPP

#include "CXapian.h"

#include <xapian.h>

#include <string>
#include <utility>
#include <vector>

namespace cx {

/// The proximity boost of cx::ProximityReranker worked out by the databases' own matchers: over remote shards, where
/// each position list or term list read from the client is a round trip of its own, a second match restricted to the
/// candidates (by the id terms their documents hold in value slot `options.id_slot`) runs on every server at once
/// and returns each candidate's boost. The first match learns the id terms best as collapse keys, which the remote
/// protocol sends with each match. Used once per search, on the thread running it.
class ServerProximityReranker {
  public:
    /// `words`: the query's words in order, unstemmed. `shards`: cx::parallel_shards of `db`, to read candidates'
    /// documents from several shards at once.
    ServerProximityReranker(Xapian::Database &db, const std::vector<Xapian::Database> *shards, std::vector<std::string> words,
                            const cx_proximity_options &options, const cx_bm25_params &params)
        : db_(db), shards_(shards), words_(std::move(words)), options_(options), params_(params) {}

    /// The matches of `base` in their new order, as cx::ProximityReranker::rerank gives them (weights within
    /// rounding: the servers add up the same terms in another order). `ids_collapsed`: `base` was collapsed on the
    /// id slot, so each match's collapse key is its id term; otherwise every candidate's document is read for it,
    /// a round trip each over the remote backend (the shards' reads at once). False, with `order` untouched, when a candidate holds no id term
    /// (an index written before documents kept one): the caller reads positions instead.
    bool rerank(const Xapian::MSet &base, size_t end, bool ids_collapsed, std::vector<cx_hit> &order);

    /// How many matches had their weight worked out again so far.
    size_t reweighed() const { return reweighed_; }

  private:
    Xapian::Database &db_;
    const std::vector<Xapian::Database> *shards_;
    std::vector<std::string> words_;
    cx_proximity_options options_;
    cx_bm25_params params_;
    size_t reweighed_ = 0;
};

} // namespace cx

#endif
