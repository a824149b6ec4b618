#include "CEInternal.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// Exact search over a compact copy of the vectors: one byte per component (a signed code times a per-vector scale)
// is a quarter of the bytes of the Float32 matrix, and the scan is bound by the bytes it reads. Each compact score
// is within a known distance of the true one (the vector's quantisation error radius times the query's length), so
// the rows whose compact score could still beat the k-th best true score are rescored from the Float32 rows, and
// the answer is the true top k.
//
// The true score of a row is the dot product of the Float32 query and the Float32 row summed in double precision,
// one component after another: every product of two floats is exact in double, so that sum is the same whether or
// not the compiler fuses the multiply and the add, and any implementation summing in that order agrees with it
// bit for bit.

namespace {

// A bound on the relative rounding error of a compact score (a sum of `dimensions` float products, then one
// multiplication by the scale, in any order of summation): (dimensions + 2) units in the last place suffice; twice
// that, with room, is what the radius allows.
double rounding_allowance(int32_t dimensions) noexcept { return double(dimensions + 16) * std::ldexp(1.0, -23); }

double true_score(const float *query, const float *row, int32_t dimensions) noexcept {
    double sum = 0;
    for (int32_t i = 0; i < dimensions; ++i) sum += double(query[i]) * double(row[i]);
    return sum;
}

// Four rows at once, each summed in its own order as true_score does: four independent chains of additions keep the
// processor busy where one waits for each addition in turn.
void true_scores(const float *query, const float *matrix, const int64_t *rows, size_t count, int32_t dimensions,
                 double *out) noexcept {
    size_t n = 0;
    for (; n + 4 <= count; n += 4) {
        const float *r0 = matrix + rows[n] * dimensions, *r1 = matrix + rows[n + 1] * dimensions;
        const float *r2 = matrix + rows[n + 2] * dimensions, *r3 = matrix + rows[n + 3] * dimensions;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int32_t i = 0; i < dimensions; ++i) {
            const double q = query[i];
            s0 += q * double(r0[i]);
            s1 += q * double(r1[i]);
            s2 += q * double(r2[i]);
            s3 += q * double(r3[i]);
        }
        out[n] = s0;
        out[n + 1] = s1;
        out[n + 2] = s2;
        out[n + 3] = s3;
    }
    for (; n < count; ++n) out[n] = true_score(query, matrix + rows[n] * dimensions, dimensions);
}

float compact_dot_portable(const float *query, const int8_t *codes, int32_t dimensions) noexcept {
    float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int32_t i = 0;
    for (; i + 8 <= dimensions; i += 8) {
        for (int j = 0; j < 8; ++j) partial[j] += query[i + j] * float(codes[i + j]);
    }
    float sum = 0;
    for (; i < dimensions; ++i) sum += query[i] * float(codes[i]);
    for (int j = 0; j < 8; ++j) sum += partial[j];
    return sum;
}

void compact_scores_portable(const float *query, const int8_t *codes, const float *scales, int64_t rows,
                             int32_t dimensions, const uint8_t *allowed, float *scores) noexcept {
    for (int64_t row = 0; row < rows; ++row) {
        if (allowed != nullptr && allowed[row] == 0) continue;
        scores[row] = compact_dot_portable(query, codes + row * dimensions, dimensions) * scales[row];
    }
}

#if defined(__x86_64__)
// Chosen at run time (`__builtin_cpu_supports`), not by the loader: an ifunc resolver crashes sanitizer builds.
__attribute__((target("avx2,fma"))) void compact_scores_avx2(const float *query, const int8_t *codes,
                                                              const float *scales, int64_t rows, int32_t dimensions,
                                                              const uint8_t *allowed, float *scores) noexcept {
    for (int64_t row = 0; row < rows; ++row) {
        if (allowed != nullptr && allowed[row] == 0) continue;
        const int8_t *c = codes + row * dimensions;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
        int32_t i = 0;
        for (; i + 32 <= dimensions; i += 32) {
            __m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(c + i))));
            __m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(c + i + 8))));
            __m256 f2 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(c + i + 16))));
            __m256 f3 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(c + i + 24))));
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), f0, a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 8), f1, a1);
            a2 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 16), f2, a2);
            a3 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 24), f3, a3);
        }
        for (; i + 8 <= dimensions; i += 8) {
            __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(c + i))));
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), f, a0);
        }
        __m256 s = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
        __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        float sum = _mm_cvtss_f32(h);
        for (; i < dimensions; ++i) sum += query[i] * float(c[i]);
        scores[row] = sum * scales[row];
    }
}

#endif

void compact_scores(const float *query, const int8_t *codes, const float *scales, int64_t rows, int32_t dimensions,
                    const uint8_t *allowed, float *scores) noexcept {
#if defined(__x86_64__)
    if (ce::has_avx2_fma()) return compact_scores_avx2(query, codes, scales, rows, dimensions, allowed, scores);
#endif
    compact_scores_portable(query, codes, scales, rows, dimensions, allowed, scores);
}

// Best first: the higher score, then the lower row.
template <typename Score> struct Better {
    bool operator()(const std::pair<Score, int64_t> &a, const std::pair<Score, int64_t> &b) const noexcept {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    }
};

// The best `k` of `entries` pushed one at a time, kept as a heap whose front is the worst kept.
template <typename Score> class BestOf {
public:
    explicit BestOf(size_t k) : k_(k) { heap_.reserve(k); }
    void offer(Score score, int64_t row) {
        std::pair<Score, int64_t> entry{score, row};
        if (heap_.size() < k_) {
            heap_.push_back(entry);
            std::push_heap(heap_.begin(), heap_.end(), Better<Score>());
        } else if (Better<Score>()(entry, heap_.front())) {
            std::pop_heap(heap_.begin(), heap_.end(), Better<Score>());
            heap_.back() = entry;
            std::push_heap(heap_.begin(), heap_.end(), Better<Score>());
        }
    }
    size_t size() const noexcept { return heap_.size(); }
    std::vector<std::pair<Score, int64_t>> sorted() {
        std::sort(heap_.begin(), heap_.end(), Better<Score>());
        return heap_;
    }

private:
    size_t k_;
    std::vector<std::pair<Score, int64_t>> heap_;
};

} // namespace

bool ce_quantize(const float *vectors, int64_t rows, int32_t dimensions, int8_t *codes, float *scales, float *radii,
                 char **error) noexcept {
    if (rows < 0 || dimensions <= 0 || (rows > 0 && (vectors == nullptr || codes == nullptr || scales == nullptr || radii == nullptr))) {
        ce::set_error(error, "ce_quantize: missing argument");
        return false;
    }
    const double allowance = rounding_allowance(dimensions);
    for (int64_t row = 0; row < rows; ++row) {
        const float *x = vectors + row * dimensions;
        int8_t *c = codes + row * dimensions;
        float largest = 0;
        bool finite = true;
        for (int32_t i = 0; i < dimensions; ++i) {
            if (!std::isfinite(x[i])) finite = false;
            largest = std::max(largest, std::fabs(x[i]));
        }
        if (!finite || largest == 0) {
            // Scored 0 by the scan; an infinite radius has every search rescore it from its true components.
            std::fill(c, c + dimensions, int8_t(0));
            scales[row] = 0;
            radii[row] = finite ? 0.0f : INFINITY;
            continue;
        }
        const float scale = largest / 127.0f;
        double error_squares = 0, kept_squares = 0;
        for (int32_t i = 0; i < dimensions; ++i) {
            long code = std::lrint(double(x[i]) / double(scale));
            code = std::min(127L, std::max(-127L, code));
            c[i] = int8_t(code);
            const double kept = double(scale) * double(code);
            error_squares += (double(x[i]) - kept) * (double(x[i]) - kept);
            kept_squares += kept * kept;
        }
        // |q·x − computed compact score| ≤ |q|·|x − kept| + rounding ≤ |q|·(|x − kept| + allowance·|kept|).
        const double radius = (std::sqrt(error_squares) + allowance * std::sqrt(kept_squares)) * (1 + 1e-6);
        radii[row] = std::nextafter(float(radius), INFINITY);
        scales[row] = scale;
    }
    return true;
}

bool ce_exact_search_compact(const float *matrix, const int8_t *codes, const float *scales, const float *radii,
                             int64_t rows, int32_t dimensions, const float *query, int32_t k, const uint8_t *allowed,
                             float *scores, int64_t *best_rows, float *best_scores, int32_t *found, int64_t *rescored,
                             char **error) noexcept {
    if (found == nullptr || query == nullptr || rows < 0 || dimensions <= 0 || k < 0 ||
        (rows > 0 && (matrix == nullptr || codes == nullptr || scales == nullptr || radii == nullptr || scores == nullptr)) ||
        (k > 0 && (best_rows == nullptr || best_scores == nullptr))) {
        ce::set_error(error, "ce_exact_search_compact: missing argument");
        return false;
    }
    *found = 0;
    if (rescored != nullptr) *rescored = 0;
    if (rows == 0 || k == 0) return true;
    try {
        compact_scores(query, codes, scales, rows, dimensions, allowed, scores);

        // The best k by compact score, rescored: the k-th best of their true scores is a floor for the true k-th best.
        BestOf<float> compact{size_t(k)};
        for (int64_t row = 0; row < rows; ++row) {
            if (allowed != nullptr && allowed[row] == 0) continue;
            compact.offer(scores[row], row);
        }
        if (compact.size() == 0) return true;
        double floor = INFINITY;
        int64_t count = 0;
        for (const auto &entry : compact.sorted()) {
            floor = std::min(floor, true_score(query, matrix + entry.second * dimensions, dimensions));
            ++count;
        }
        // Fewer allowed rows than k: every one of them is in the answer.
        if (compact.size() < size_t(k)) floor = -INFINITY;

        // Every row whose compact score plus its error bound reaches the floor could be in the true top k; no other can.
        double length = 0;
        for (int32_t i = 0; i < dimensions; ++i) length += double(query[i]) * double(query[i]);
        length = std::sqrt(length) * (1 + 1e-6);
        std::vector<int64_t> candidates;
        for (int64_t row = 0; row < rows; ++row) {
            if (allowed != nullptr && allowed[row] == 0) continue;
            if (double(scores[row]) + length * double(radii[row]) >= floor) candidates.push_back(row);
        }
        std::vector<double> exact(candidates.size());
        true_scores(query, matrix, candidates.data(), candidates.size(), dimensions, exact.data());
        BestOf<double> best{size_t(k)};
        for (size_t i = 0; i < candidates.size(); ++i) best.offer(exact[i], candidates[i]);
        count += int64_t(candidates.size());
        const auto sorted = best.sorted();
        for (size_t i = 0; i < sorted.size(); ++i) {
            best_rows[i] = sorted[i].second;
            best_scores[i] = float(sorted[i].first);
        }
        *found = int32_t(sorted.size());
        if (rescored != nullptr) *rescored = count;
        return true;
    } catch (...) {
        ce::set_current_error(error, "exact search");
        return false;
    }
}
