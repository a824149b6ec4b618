#include "CEInternal.hpp"

#include <cblas.h>

#include <algorithm>
#include <utility>
#include <vector>

bool ce_exact_search(const float *matrix, int64_t rows, int32_t dimensions, const float *query, int32_t k,
                     const uint8_t *allowed, float *scores, int64_t *best_rows, float *best_scores, int32_t *found,
                     char **error) noexcept {
    if (found == nullptr || query == nullptr || rows < 0 || dimensions <= 0 || k < 0 ||
        (rows > 0 && (matrix == nullptr || scores == nullptr)) || (k > 0 && (best_rows == nullptr || best_scores == nullptr))) {
        ce::set_error(error, "ce_exact_search: missing argument");
        return false;
    }
    *found = 0;
    if (rows == 0 || k == 0) return true;
    // sgemv takes an int row count: larger matrices go through in slices.
    const int64_t slice = 1 << 30;
    for (int64_t start = 0; start < rows; start += slice) {
        int64_t count = std::min(slice, rows - start);
        cblas_sgemv(CblasRowMajor, CblasNoTrans, int(count), dimensions, 1.0f, matrix + start * dimensions, dimensions,
                    query, 1, 0.0f, scores + start, 1);
    }
    // A min-heap of the best k so far: (score, -row) so that among equal scores the lower row ranks higher.
    try {
        using Entry = std::pair<float, int64_t>;
        auto better = [](const Entry &a, const Entry &b) {
            return a.first > b.first || (a.first == b.first && a.second < b.second);
        };
        std::vector<Entry> heap;
        heap.reserve(size_t(k));
        for (int64_t row = 0; row < rows; ++row) {
            if (allowed != nullptr && allowed[row] == 0) continue;
            Entry entry{scores[row], row};
            if (heap.size() < size_t(k)) {
                heap.push_back(entry);
                std::push_heap(heap.begin(), heap.end(), better);
            } else if (better(entry, heap.front())) {
                std::pop_heap(heap.begin(), heap.end(), better);
                heap.back() = entry;
                std::push_heap(heap.begin(), heap.end(), better);
            }
        }
        std::sort(heap.begin(), heap.end(), better);
        for (size_t i = 0; i < heap.size(); ++i) {
            best_rows[i] = heap[i].second;
            best_scores[i] = heap[i].first;
        }
        *found = int32_t(heap.size());
        return true;
    } catch (...) {
        ce::set_current_error(error, "exact search");
        return false;
    }
}
