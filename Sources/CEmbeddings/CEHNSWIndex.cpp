#include "CEInternal.hpp"

#include <hnswlib/hnswlib.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

struct ce_hnsw {
    std::unique_ptr<hnswlib::InnerProductSpace> space;
    std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
    int32_t dimensions = 0;
};

ce_hnsw *ce_hnsw_new(int32_t dimensions, int64_t capacity, int32_t m, int32_t ef_construction, uint64_t seed,
                     char **error) noexcept {
    if (dimensions <= 0 || capacity < 0 || m < 2 || ef_construction < 1) {
        ce::set_error(error, "ce_hnsw_new: dimensions, capacity, M or efConstruction out of range");
        return nullptr;
    }
    try {
        auto index = std::make_unique<ce_hnsw>();
        index->dimensions = dimensions;
        index->space = std::make_unique<hnswlib::InnerProductSpace>(size_t(dimensions));
        index->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(
            index->space.get(), size_t(std::max<int64_t>(capacity, 1)), size_t(m), size_t(ef_construction), size_t(seed));
        return index.release();
    } catch (...) {
        ce::set_current_error(error, "creating the HNSW graph");
        return nullptr;
    }
}

ce_hnsw *ce_hnsw_load(const char *path, int32_t dimensions, char **error) noexcept {
    if (path == nullptr || dimensions <= 0) {
        ce::set_error(error, "ce_hnsw_load: missing path or dimensions");
        return nullptr;
    }
    try {
        auto index = std::make_unique<ce_hnsw>();
        index->dimensions = dimensions;
        index->space = std::make_unique<hnswlib::InnerProductSpace>(size_t(dimensions));
        index->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(index->space.get(), std::string(path));
        if (index->graph->data_size_ != sizeof(float) * size_t(dimensions)) {
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
