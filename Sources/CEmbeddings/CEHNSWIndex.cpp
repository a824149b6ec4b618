#include "CEInnerProduct.hpp"

// hnswlib's main header defines functions (not inline): this is the one file that includes it.
#include <hnswlib/hnswlib.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

struct ce_hnsw {
    std::unique_ptr<hnswlib::SpaceInterface<float>> space;
    std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
    int32_t dimensions = 0;
    ce_distance_kernel kernel = CE_KERNEL_PORTABLE;
};

namespace {

// hnswlib's distance for normalised vectors (1 − dot product), with the dot product of our own loops: hnswlib picks
// its SIMD loop from the compiler's target macros at build time, which for a build that runs on any x86-64 processor
// means SSE, four floats at a time; this space takes the AVX2/FMA loop (eight at a time, fused) where the processor
// has it, decided at run time.
class InnerProductSpace final : public hnswlib::SpaceInterface<float> {
public:
    // `kernel` is CE_KERNEL_PORTABLE or CE_KERNEL_AVX2 (which the caller has checked the processor runs).
    InnerProductSpace(size_t dimensions, ce_distance_kernel kernel) noexcept
        : dimensions_(dimensions), function_(ce::distance_portable) {
#if defined(__x86_64__)
        if (kernel == CE_KERNEL_AVX2) function_ = ce::distance_avx2;
#else
        (void)kernel;
#endif
    }
    size_t get_data_size() override { return dimensions_ * sizeof(float); }
    hnswlib::DISTFUNC<float> get_dist_func() override { return function_; }
    void *get_dist_func_param() override { return &dimensions_; }

private:
    size_t dimensions_;
    hnswlib::DISTFUNC<float> function_;
};

// The space of `kernel` (resolved), or NULL with an error when this processor cannot run it.
std::unique_ptr<hnswlib::SpaceInterface<float>> make_space(int32_t dimensions, ce_distance_kernel kernel, char **error) {
    if (!ce_distance_kernel_available(kernel)) {
        ce::set_error(error, "this processor has no AVX2 and FMA: choose the automatic or the portable distance kernel");
        return nullptr;
    }
    switch (ce::resolved_kernel(kernel)) {
    case CE_KERNEL_HNSWLIB:
        return std::make_unique<hnswlib::InnerProductSpace>(size_t(dimensions));
    case CE_KERNEL_AVX2:
        return std::make_unique<InnerProductSpace>(size_t(dimensions), CE_KERNEL_AVX2);
    default:
        return std::make_unique<InnerProductSpace>(size_t(dimensions), CE_KERNEL_PORTABLE);
    }
}

// The bytes hnswlib's saveIndex writes for `graph`: its header, every element's level-0 block, and each element's
// upper-level links with their length.
uint64_t saved_size(const hnswlib::HierarchicalNSW<float> &graph) {
    uint64_t bytes = sizeof(graph.offsetLevel0_) + sizeof(graph.max_elements_) + sizeof(size_t) /* cur_element_count */ +
            sizeof(graph.size_data_per_element_) + sizeof(graph.label_offset_) + sizeof(graph.offsetData_) +
            sizeof(graph.maxlevel_) + sizeof(graph.enterpoint_node_) + sizeof(graph.maxM_) + sizeof(graph.maxM0_) +
            sizeof(graph.M_) + sizeof(graph.mult_) + sizeof(graph.ef_construction_);
    const size_t count = graph.cur_element_count;
    bytes += uint64_t(count) * graph.size_data_per_element_;
    for (size_t i = 0; i < count; ++i) {
        bytes += sizeof(unsigned int);
        if (graph.element_levels_[i] > 0) bytes += uint64_t(graph.size_links_per_element_) * uint64_t(graph.element_levels_[i]);
    }
    return bytes;
}

} // namespace

ce_hnsw *ce_hnsw_new(int32_t dimensions, int64_t capacity, int32_t m, int32_t ef_construction, uint64_t seed,
                     ce_distance_kernel kernel, char **error) noexcept {
    if (dimensions <= 0 || capacity < 0 || m < 2 || ef_construction < 1) {
        ce::set_error(error, "ce_hnsw_new: dimensions, capacity, M or efConstruction out of range");
        return nullptr;
    }
    try {
        auto index = std::make_unique<ce_hnsw>();
        index->dimensions = dimensions;
        index->kernel = ce::resolved_kernel(kernel);
        index->space = make_space(dimensions, kernel, error);
        if (!index->space) return nullptr;
        index->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(
            index->space.get(), size_t(std::max<int64_t>(capacity, 1)), size_t(m), size_t(ef_construction), size_t(seed));
        return index.release();
    } catch (...) {
        ce::set_current_error(error, "creating the HNSW graph");
        return nullptr;
    }
}

ce_hnsw *ce_hnsw_load(const char *path, int32_t dimensions, ce_distance_kernel kernel, char **error) noexcept {
    if (path == nullptr || dimensions <= 0) {
        ce::set_error(error, "ce_hnsw_load: missing path or dimensions");
        return nullptr;
    }
    try {
        auto index = std::make_unique<ce_hnsw>();
        index->dimensions = dimensions;
        index->kernel = ce::resolved_kernel(kernel);
        index->space = make_space(dimensions, kernel, error);
        if (!index->space) return nullptr;
        index->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(index->space.get(), std::string(path));
        // The file says where each element's vector ends (its label follows): a vector of other dimensions than
        // asked would be read with the wrong length.
        const auto &graph = *index->graph;
        if (graph.label_offset_ < graph.offsetData_ || graph.label_offset_ - graph.offsetData_ != sizeof(float) * size_t(dimensions)) {
            ce::set_error(error, std::string("the HNSW graph at ") + path + " holds vectors of another dimension");
            return nullptr;
        }
        return index.release();
    } catch (...) {
        ce::set_current_error(error, (std::string("loading the HNSW graph at ") + path).c_str());
        return nullptr;
    }
}

void ce_hnsw_free(ce_hnsw *index) noexcept { delete index; }

bool ce_hnsw_save(ce_hnsw *index, const char *path, char **error) noexcept {
    if (index == nullptr || path == nullptr) {
        ce::set_error(error, "ce_hnsw_save: missing argument");
        return false;
    }
    try {
        index->graph->saveIndex(std::string(path));
        // hnswlib does not check its writes: a full disk leaves a short file behind without a word.
        std::ifstream written(path, std::ios::binary | std::ios::ate);
        const uint64_t expected = saved_size(*index->graph);
        const auto size = written.is_open() ? int64_t(written.tellg()) : int64_t(-1);
        if (size < 0 || uint64_t(size) != expected) {
            written.close();
            std::remove(path);
            ce::set_error(error, std::string("saving the HNSW graph at ") + path + ": " + std::to_string(size < 0 ? 0 : size) +
                                     " bytes written of " + std::to_string(expected) + " (is the disk full?)");
            return false;
        }
        return true;
    } catch (...) {
        ce::set_current_error(error, (std::string("saving the HNSW graph at ") + path).c_str());
        return false;
    }
}

bool ce_hnsw_add(ce_hnsw *index, const float *vector, uint64_t label, char **error) noexcept {
    if (index == nullptr || vector == nullptr) {
        ce::set_error(error, "ce_hnsw_add: missing argument");
        return false;
    }
    try {
        auto &graph = *index->graph;
        bool existing = graph.label_lookup_.find(label) != graph.label_lookup_.end();
        if (!existing && graph.cur_element_count >= graph.max_elements_) {
            graph.resizeIndex(std::max<size_t>(graph.max_elements_ * 2, 1024));
        }
        graph.addPoint(vector, label);
        return true;
    } catch (...) {
        ce::set_current_error(error, "adding to the HNSW graph");
        return false;
    }
}

bool ce_hnsw_add_all(ce_hnsw *index, const float *vectors, const uint64_t *labels, int64_t count, int32_t threads,
                     void (*progress)(void *context, int64_t added), void *context, int64_t progress_step,
                     char **error) noexcept {
    if (index == nullptr || count < 0 || (count > 0 && (vectors == nullptr || labels == nullptr))) {
        ce::set_error(error, "ce_hnsw_add_all: missing argument");
        return false;
    }
    if (count == 0) return true;
    try {
        auto &graph = *index->graph;
        // Resizing is not safe while others insert: room for all of them first.
        size_t needed = graph.cur_element_count + size_t(count);
        if (needed > graph.max_elements_) graph.resizeIndex(needed);
        const size_t dimensions = size_t(index->dimensions);
        std::atomic<int64_t> next{0}, added{0};
        std::atomic<bool> failed{false};
        std::mutex failure_lock;
        std::string failure;
        auto work = [&](bool reports) {
            int64_t report_at = progress_step > 0 ? progress_step : count + 1;
            while (!failed.load(std::memory_order_relaxed)) {
                int64_t i = next.fetch_add(1, std::memory_order_relaxed);
                if (i >= count) break;
                try {
                    graph.addPoint(vectors + size_t(i) * dimensions, labels[i]);
                } catch (...) {
                    failed.store(true);
                    char *message = nullptr;
                    ce::set_current_error(&message, "adding to the HNSW graph");
                    try {
                        std::lock_guard<std::mutex> guard(failure_lock);
                        if (failure.empty() && message != nullptr) failure = message;
                    } catch (...) {
                    }
                    std::free(message);
                    break;
                }
                int64_t done = added.fetch_add(1, std::memory_order_relaxed) + 1;
                if (reports && progress != nullptr && done >= report_at) {
                    progress(context, done);
                    report_at = (done / progress_step + 1) * progress_step;
                }
            }
        };
        // hnswlib 0.6.2 guards its graph per element, but draws every new element's level from one shared random
        // engine without a lock (its own bindings add on threads the same way): concurrent draws can repeat a level,
        // which changes nothing a search relies on, and make the graph differ from run to run. A caller that needs a
        // reproducible graph, or a ThreadSanitizer run, passes threads = 1.
        int32_t helpers = int32_t(std::min<int64_t>(std::max(threads, 1) - 1, count / 1000));
        std::vector<std::thread> pool;
        pool.reserve(size_t(std::max(helpers, 0)));
        for (int32_t t = 0; t < helpers; ++t) {
            try {
                pool.emplace_back([&work] { work(false); });
            } catch (...) {
                break; // fewer threads: the caller's thread and those started still add every vector
            }
        }
        work(true);
        for (auto &thread : pool) thread.join();
        if (failed.load()) {
            ce::set_error(error, failure.empty() ? std::string("adding to the HNSW graph failed") : failure);
            return false;
        }
        if (progress != nullptr) progress(context, added.load());
        return true;
    } catch (...) {
        ce::set_current_error(error, "adding to the HNSW graph");
        return false;
    }
}

bool ce_hnsw_remove(ce_hnsw *index, uint64_t label, char **error) noexcept {
    if (index == nullptr) {
        ce::set_error(error, "ce_hnsw_remove: missing argument");
        return false;
    }
    try {
        auto &graph = *index->graph;
        auto found = graph.label_lookup_.find(label);
        if (found == graph.label_lookup_.end() || graph.isMarkedDeleted(found->second)) return true;
        graph.markDelete(label);
        return true;
    } catch (...) {
        ce::set_current_error(error, "removing from the HNSW graph");
        return false;
    }
}

int64_t ce_hnsw_count(const ce_hnsw *index) noexcept {
    return index == nullptr ? 0 : int64_t(index->graph->cur_element_count);
}

bool ce_hnsw_describe(const ce_hnsw *index, int32_t *dimensions, int32_t *m, int32_t *ef_construction,
                      ce_distance_kernel *kernel) noexcept {
    if (index == nullptr) return false;
    if (dimensions != nullptr) *dimensions = index->dimensions;
    if (m != nullptr) *m = int32_t(index->graph->M_);
    if (ef_construction != nullptr) *ef_construction = int32_t(index->graph->ef_construction_);
    if (kernel != nullptr) *kernel = index->kernel;
    return true;
}

int64_t ce_hnsw_deleted_count(const ce_hnsw *index) noexcept { return index == nullptr ? 0 : int64_t(index->graph->num_deleted_); }

bool ce_hnsw_search(ce_hnsw *index, const float *query, int32_t k, int32_t ef, uint64_t *labels, float *scores,
                    int32_t *found, char **error) noexcept {
    if (index == nullptr || query == nullptr || found == nullptr || k < 0 || (k > 0 && (labels == nullptr || scores == nullptr))) {
        ce::set_error(error, "ce_hnsw_search: missing argument");
        return false;
    }
    *found = 0;
    if (k == 0) return true;
    try {
        index->graph->setEf(size_t(std::max(ef, k)));
        auto queue = index->graph->searchKnn(query, size_t(k));
        int32_t n = int32_t(queue.size());
        // The queue pops the farthest first; fill from the back so the nearest comes first.
        for (int32_t i = n - 1; i >= 0; --i) {
            labels[i] = uint64_t(queue.top().second);
            scores[i] = 1.0f - queue.top().first;
            queue.pop();
        }
        *found = n;
        return true;
    } catch (...) {
        ce::set_current_error(error, "searching the HNSW graph");
        return false;
    }
}

bool ce_inner_product(ce_distance_kernel kernel, const float *a, const float *b, int32_t dimensions, float *product,
                      char **error) noexcept {
    if (product == nullptr || dimensions < 0 || (dimensions > 0 && (a == nullptr || b == nullptr))) {
        ce::set_error(error, "ce_inner_product: missing argument");
        return false;
    }
    if (!ce_distance_kernel_available(kernel)) {
        ce::set_error(error, "ce_inner_product: this processor has no AVX2 and FMA for that kernel");
        return false;
    }
    const size_t n = size_t(dimensions);
    switch (ce::resolved_kernel(kernel)) {
#if defined(__x86_64__)
    case CE_KERNEL_AVX2:
        *product = ce::inner_product_avx2(a, b, n);
        return true;
#endif
    case CE_KERNEL_HNSWLIB: {
        hnswlib::InnerProductSpace space(n);
        *product = 1.0f - space.get_dist_func()(a, b, space.get_dist_func_param());
        return true;
    }
    default:
        *product = ce::inner_product_portable(a, b, n);
        return true;
    }
}
