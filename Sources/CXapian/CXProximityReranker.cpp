#include "CXProximityReranker.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace {

// BM25 as Xapian 1.4's BM25Weight computes it for one term of a one-term query (wqf 1, k2 = 0, no relevance set),
// from the combined database's statistics, so a sharded index gives what one database gives.
class TermWeigher {
public:
    TermWeigher(const Xapian::Database &db, const cx_bm25_params &params)
        : db_(db), params_(params), documents_(double(db.get_doccount())) {
        double average = db.get_avlength();
        length_factor_ = average > 0 ? 1 / average : 0;
    }

    // `frequency_out`, when given, receives the term's frequency.
    double idf(const std::string &term, Xapian::doccount *frequency_out = nullptr) const {
        Xapian::doccount count = db_.get_termfreq(term);
        if (frequency_out != nullptr) *frequency_out = count;
        double frequency = double(count);
        double ratio = (documents_ - frequency + 0.5) / (frequency + 0.5);
        // BM25Weight's guard against the negative weights of terms in more than half of the documents.
        if (ratio < 2) ratio = ratio * 0.5 + 1;
        // (k3 + 1) wqf / (k3 + wqf) is 1 for a word given once.
        return std::log(ratio) * (params_.k1 + 1);
    }

    double weight(double idf, Xapian::termcount wdf, Xapian::termcount length) const {
        if (wdf == 0) return 0;
        double normalised = std::max(double(length) * length_factor_, params_.min_normlen);
        double denominator = params_.k1 * (normalised * params_.b + (1 - params_.b)) + double(wdf);
        return idf * (double(wdf) / denominator);
    }

    // The most `weight` can give for `wdf` at any length: the same arithmetic at the shortest normalised length, so
    // that it is at least `weight` in floating point too (each step is monotonic), never a rounding below it.
    double bound(double idf, Xapian::termcount wdf) const {
        if (wdf == 0) return 0;
        double normalised = params_.min_normlen;
        double denominator = params_.k1 * (normalised * params_.b + (1 - params_.b)) + double(wdf);
        return idf * (double(wdf) / denominator);
    }

private:
    const Xapian::Database &db_;
    cx_bm25_params params_;
    double documents_;
    double length_factor_ = 0;
};

// Whether some position of `left` and some position of `right` lie less than `window` apart (OP_NEAR of two terms).
bool near(const std::vector<Xapian::termpos> &left, const std::vector<Xapian::termpos> &right, uint32_t window) {
    size_t i = 0, j = 0;
    while (i < left.size() && j < right.size()) {
        Xapian::termpos a = left[i], b = right[j];
        if ((a > b ? a - b : b - a) < window) return true;
        if (a < b) ++i; else ++j;
    }
    return false;
}

} // namespace

namespace cx {

std::vector<cx_hit> base_order(const Xapian::MSet &base) {
    std::vector<cx_hit> order;
    order.reserve(base.size());
    for (Xapian::MSetIterator hit = base.begin(); hit != base.end(); ++hit) {
        order.push_back(cx_hit{*hit, hit.get_rank(), hit.get_weight(), hit.get_percent()});
    }
    return order;
}

size_t candidate_count(const std::vector<cx_hit> &order, uint32_t depth) {
    size_t count = std::min<size_t>(depth, order.size());
    auto tied = [](double left, double right) { return std::fabs(left - right) <= 1e-9 * std::max(1.0, std::fabs(left)); };
    if (count < order.size()) {
        while (count > 0 && tied(order[count - 1].weight, order[count].weight)) --count;
    }
    return count;
}

void sort_candidates(std::vector<cx_hit> &order, size_t count) {
    std::sort(order.begin(), order.begin() + std::ptrdiff_t(count), [](const cx_hit &left, const cx_hit &right) {
        return left.weight != right.weight ? left.weight > right.weight : left.rank < right.rank;
    });
    for (size_t index = 0; index < count; ++index) order[index].rank = Xapian::doccount(index);
}

// The order of a proximity-boosted search (see cx_proximity_options): the best `depth` matches of `base` get the
// boost of each pair of consecutive query words found within the window: the pair's share of the weight times the
// two words' BM25 weights in the document (what the pair's OP_NEAR subquery would add), and are sorted by that
// weight (ties keep the base order); the rest of `base` follows as it is. Evaluating OP_NEAR pairs in the query
// read the positions of every document holding two of the words, about 60 times the reads of the query itself on
// the Debian catalogue; here the words' posting lists are read forward once over the `depth` documents.
//
// Only the first `end` places are returned, and reading positions (one B-tree lookup per document, most of the
// cost) is needed only where it can change them. A boost is never negative and never more than the pairs' BM25
// weights at the shortest normalised length, which the posting lists' wdfs give; so, taking the documents from the
// highest such bound down, a document whose bound stays below the `end`-th best weight known exactly cannot reach
// the page, nor can any after it. Those keep their base weight, below every weight of the page: the page is the one
// every document re-weighed would give, weights bit for bit.
//
// Over the remote backend (`remote`) a posting list is not read forward: the server sends the whole list, one
// message per posting, before the first is read, so the common words of a query moved a share of the corpus per
// search and its cost grew with the shards. When the words' postings outnumber the terms of the candidates' term
// lists, the candidates are taken in base order instead, which is also the order of the highest possible weights
// (base weight plus every pair's idfs): once that stays below the `end`-th best weight known exactly, no candidate
// left can reach the page. Each has its words' positions read (a round trip and a few messages a word), and only one
// where a pair is near has its term list read for the wdfs (a round trip, about the document's length in messages).
// Every candidate read is weighed exactly, so the page is the same as the local reading's, bit for bit.
std::vector<cx_hit> ProximityReranker::rerank(const Xapian::MSet &base, size_t end) {
    std::vector<cx_hit> order = base_order(base);
    size_t depth = candidate_count(order, options_.depth);
    if (depth == 0 || words_.size() < 2 || end == 0) return order;

    TermWeigher weigher(db_, params_);
    double share = options_.weight / double(words_.size() - 1);
    std::vector<double> idfs;
    std::vector<Xapian::doccount> frequencies(words_.size());
    for (size_t word = 0; word < words_.size(); ++word) idfs.push_back(weigher.idf(words_[word], &frequencies[word]));
    // The bounds hold for BM25's parameters in their ranges (BM25Weight refuses others); outside them, every
    // candidate is weighed.
    bool bounded = end < depth && params_.k1 >= 0 && params_.b >= 0 && params_.b <= 1 && params_.min_normlen >= 0 &&
                   std::isfinite(params_.min_normlen);
    // Before any posting is read: a candidate whose base weight plus every pair's idfs stays below the `end`-th
    // base weight is out of the page whatever its boost (the `end` best bases only gain).
    double page_floor = bounded ? order[end - 1].weight : 0;
    double most = 0;
    for (size_t pair = 0; pair + 1 < words_.size(); ++pair) most += share * (idfs[pair] + idfs[pair + 1]);

    // The `end` best weights known exactly so far (a min-heap): candidates never opened keep their base weight.
    std::vector<double> best;
    auto know = [&](double weight) {
        if (!bounded) return;
        if (best.size() < end) {
            best.push_back(weight);
            std::push_heap(best.begin(), best.end(), std::greater<double>());
        } else if (weight > best.front()) {
            std::pop_heap(best.begin(), best.end(), std::greater<double>());
            best.back() = weight;
            std::push_heap(best.begin(), best.end(), std::greater<double>());
        }
    };
    // Whether `weight` is below the `end`-th best weight known exactly: a candidate that can weigh no more is out.
    auto below_page = [&](double weight) { return bounded && best.size() == end && weight < best.front(); };
    // The most the pairs of the candidate with these wdfs can add (0: no pair in the document).
    auto wdf_bound = [&](const Xapian::termcount *wdf) {
        double bound = 0;
        for (size_t pair = 0; pair + 1 < words_.size(); ++pair) {
            if (wdf[pair] == 0 || wdf[pair + 1] == 0) continue;
            bound += share * (weigher.bound(idfs[pair], wdf[pair]) + weigher.bound(idfs[pair + 1], wdf[pair + 1]));
        }
        return bound;
    };
    std::vector<std::vector<Xapian::termpos>> positions(words_.size());
    std::vector<bool> read(words_.size());
    // The candidate at `index` re-weighed from its words_' positions (read here unless `positions_read`).
    auto reweigh = [&](size_t index, const Xapian::termcount *wdf, bool positions_read) {
        Xapian::docid docid = order[index].docid;
        std::fill(read.begin(), read.end(), positions_read);
        // Read only when a pair is near: the document length is a lookup of its own.
        Xapian::termcount length = 0;
        bool length_read = false;
        double boost = 0;
        for (size_t pair = 0; pair + 1 < words_.size(); ++pair) {
            if (wdf[pair] == 0 || wdf[pair + 1] == 0) continue;
            // Positions are read only for words_ whose neighbour is in the document too.
            for (size_t word : {pair, pair + 1}) {
                if (!read[word]) {
                    positions[word].assign(db_.positionlist_begin(docid, words_[word]), db_.positionlist_end(docid, words_[word]));
                    read[word] = true;
                }
            }
            if (!near(positions[pair], positions[pair + 1], options_.window)) continue;
            if (!length_read) {
                length = db_.get_doclength(docid);
                length_read = true;
            }
            boost += share * (weigher.weight(idfs[pair], wdf[pair], length) +
                              weigher.weight(idfs[pair + 1], wdf[pair + 1], length));
        }
        order[index].weight += boost;
        know(order[index].weight);
        ++reweighed_;
    };

    // Over the remote_ backend, each posting of a posting list and each term of a term list is a message of its own
    // (Xapian 1.4's protocol), so the reading with fewer of them is taken: the words_' postings, or at most one term
    // list (about the average document length) for each candidate that may need weighing.
    bool by_term_lists = false;
    if (remote_) {
        double postings = 0;
        for (Xapian::doccount frequency : frequencies) postings += double(frequency);
        size_t candidates = 0;
        for (size_t index = 0; index < depth; ++index) {
            if (!bounded || order[index].weight + most >= page_floor) ++candidates;
        }
        by_term_lists = double(candidates) * db_.get_avlength() < postings;
    }
    if (by_term_lists) {
        // The words_ in term order, so that each term list is read forward once.
        std::vector<size_t> by_term(words_.size());
        for (size_t word = 0; word < words_.size(); ++word) by_term[word] = word;
        std::sort(by_term.begin(), by_term.end(), [&](size_t left, size_t right) { return words_[left] < words_[right]; });
        std::vector<Xapian::termcount> wdf(words_.size());
        for (size_t index = 0; index < depth; ++index) {
            double highest = order[index].weight + most;
            if ((bounded && highest < page_floor) || below_page(highest)) break;
            // Positions first, a few messages a word: only a document where some pair is near needs its term list.
            Xapian::docid docid = order[index].docid;
            for (size_t word = 0; word < words_.size(); ++word) {
                positions[word].assign(db_.positionlist_begin(docid, words_[word]), db_.positionlist_end(docid, words_[word]));
            }
            bool some_near = false;
            for (size_t pair = 0; pair + 1 < words_.size() && !some_near; ++pair) {
                some_near = near(positions[pair], positions[pair + 1], options_.window);
            }
            if (!some_near) {
                know(order[index].weight);
                continue;
            }
            std::fill(wdf.begin(), wdf.end(), 0);
            Xapian::TermIterator term = db_.termlist_begin(docid);
            const Xapian::TermIterator terms_end = db_.termlist_end(docid);
            for (size_t word : by_term) {
                term.skip_to(words_[word]);
                if (term == terms_end) break;
                if (*term == words_[word]) wdf[word] = term.get_wdf();
            }
            reweigh(index, wdf.data(), true);
        }
    } else {
        // The candidates in document order, so that each word's posting list is read forward once for the wdfs.
        std::vector<size_t> by_docid;
        by_docid.reserve(depth);
        for (size_t index = 0; index < depth; ++index) {
            if (bounded && order[index].weight + most < page_floor) continue;
            by_docid.push_back(index);
        }
        std::sort(by_docid.begin(), by_docid.end(),
                  [&](size_t left, size_t right) { return order[left].docid < order[right].docid; });
        std::vector<Xapian::PostingIterator> postings;
        for (const std::string &word : words_) postings.push_back(db_.postlist_begin(word));
        const Xapian::PostingIterator postings_end;
        std::vector<Xapian::termcount> wdfs(depth * words_.size(), 0);
        for (size_t index : by_docid) {
            Xapian::docid docid = order[index].docid;
            for (size_t word = 0; word < words_.size(); ++word) {
                Xapian::PostingIterator &posting = postings[word];
                if (posting == postings_end) continue;
                posting.skip_to(docid);
                if (posting == postings_end || *posting != docid) continue;
                wdfs[index * words_.size() + word] = posting.get_wdf();
            }
        }

        // Each candidate holding both words_ of a pair, with the most its pairs could add; the others' weights are final.
        struct Candidate {
            size_t index;
            double most;
        };
        std::vector<Candidate> open;
        for (size_t index : by_docid) {
            double bound = wdf_bound(&wdfs[index * words_.size()]);
            if (bound > 0) open.push_back(Candidate{index, order[index].weight + bound});
            else know(order[index].weight);
        }
        std::stable_sort(open.begin(), open.end(), [](const Candidate &left, const Candidate &right) { return left.most > right.most; });
        for (const Candidate &candidate : open) {
            if (below_page(candidate.most)) break;
            reweigh(candidate.index, &wdfs[candidate.index * words_.size()], false);
        }
    }
    sort_candidates(order, depth);
    return order;
}

} // namespace cx
