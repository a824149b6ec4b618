#ifndef CEMBEDDINGS_H
#define CEMBEDDINGS_H

/*
 * CEmbeddings: the numeric core of SpotliteEmbeddings, a BERT encoder forward pass over OpenBLAS, exact
 * nearest-neighbour search, and hnswlib's HNSW graph, behind an exception-safe C interface.
 *
 * Conventions for every function below:
 *
 * - Errors. A fallible function takes `char **error` as its last parameter. On failure it stores a message
 *   allocated with malloc (the caller frees it with ce_free) and returns its failure value: NULL for handles,
 *   false for bool. On success `*error` is left as it was. `error == NULL` discards the message.
 *   No C++ exception ever leaves this interface (std::bad_alloc, std::exception, anything else).
 * - Handles. `ce_*_new`/`ce_*_load` return a handle the caller owns and releases with the matching `ce_*_free`,
 *   which accepts NULL. A handle is not thread-safe: never use one from two threads at the same time.
 * - Weights. The encoder keeps the pointers it is given (memory-mapped tensors): they must outlive it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define CE_NOEXCEPT noexcept
extern "C" {
#else
#define CE_NOEXCEPT
#endif

/** Releases a message or buffer this interface allocated. Accepts NULL. */
void ce_free(void *pointer) CE_NOEXCEPT;

/* MARK: - BERT encoder */

/** How token vectors become one sentence vector. */
typedef enum ce_pooling {
    CE_POOLING_MEAN = 0, /**< The mean of every token's last hidden state ([CLS] and [SEP] included). */
    CE_POOLING_CLS = 1,  /**< The first token's ([CLS]) last hidden state. */
} ce_pooling;

/** The feed-forward activation (`hidden_act` in config.json). */
typedef enum ce_activation {
    CE_ACTIVATION_GELU = 0,      /**< "gelu": x/2 (1 + erf(x/√2)). */
    CE_ACTIVATION_GELU_TANH = 1, /**< "gelu_new", "gelu_pytorch_tanh": the tanh approximation. */
} ce_activation;

/** The shape of a BERT encoder. */
typedef struct ce_bert_config {
    int32_t hidden;            /**< hidden_size */
    int32_t heads;             /**< num_attention_heads (divides hidden) */
    int32_t intermediate;      /**< intermediate_size */
    int32_t layers;            /**< num_hidden_layers */
    int32_t vocabulary;        /**< rows of the word embeddings */
    int32_t positions;         /**< max_position_embeddings: the longest sequence */
    float norm_epsilon;        /**< layer_norm_eps */
    ce_activation activation;
    ce_pooling pooling;
} ce_bert_config;

/** One encoder layer's tensors, row-major F32 as PyTorch saves them (a linear layer's weight is [out, in]). */
typedef struct ce_bert_layer {
    const float *query_weight, *query_bias;
    const float *key_weight, *key_bias;
    const float *value_weight, *value_bias;
    const float *attention_output_weight, *attention_output_bias;
    const float *attention_norm_weight, *attention_norm_bias;
    const float *intermediate_weight, *intermediate_bias;
    const float *output_weight, *output_bias;
    const float *output_norm_weight, *output_norm_bias;
} ce_bert_layer;

/** The embedding tensors and `config.layers` layers. */
typedef struct ce_bert_weights {
    const float *word_embeddings;       /**< [vocabulary, hidden] */
    const float *position_embeddings;   /**< [positions, hidden] */
    const float *token_type_embeddings; /**< [types, hidden]; row 0 is used */
    const float *embedding_norm_weight, *embedding_norm_bias;
    const ce_bert_layer *layers;        /**< config.layers entries, copied by ce_bert_new */
} ce_bert_weights;

typedef struct ce_bert ce_bert;

/** An encoder over `weights` (kept, not copied); checks the configuration. */
ce_bert *ce_bert_new(const ce_bert_config *config, const ce_bert_weights *weights, char **error) CE_NOEXCEPT;
void ce_bert_free(ce_bert *encoder) CE_NOEXCEPT;

/**
 * Encodes `count` sequences packed one after another in `token_ids` (sequence i has `lengths[i]` ids, each in
 * [0, vocabulary), 1 ≤ length ≤ positions) into `count` L2-normalised vectors of `hidden` floats in `vectors`.
 * Sequences are not padded: every matrix product runs over all the tokens of all the sequences at once, and
 * attention within each sequence. Scratch memory grows to the largest call and is reused.
 */
bool ce_bert_encode(ce_bert *encoder, const int32_t *token_ids, const int32_t *lengths, int32_t count,
                    float *vectors, char **error) CE_NOEXCEPT;

/* MARK: - Exact search */

/**
 * The `k` rows of `matrix` ([rows, dimensions], row-major) with the largest dot product with `query`, best first
 * (ties by lower row), in `best_rows` and `best_scores` (room for k each); returns how many were found
 * (min(k, rows, allowed rows)) in `*found`. `allowed`, when not NULL, has one byte per row: 0 leaves the row out.
 * `scores` is scratch of `rows` floats.
 */
bool ce_exact_search(const float *matrix, int64_t rows, int32_t dimensions, const float *query, int32_t k,
                     const uint8_t *allowed, float *scores, int64_t *best_rows, float *best_scores, int32_t *found,
                     char **error) CE_NOEXCEPT;

/**
 * The compact copy of `rows` vectors ([rows, dimensions], row-major) that ce_exact_search_compact scans: for each
 * row, `dimensions` signed codes in `codes` (a quarter of the bytes of the floats) and a scale in `scales`, the
 * component i being about codes[i] × scale, and in `radii` a bound on how far the row's compact score of any query
 * q can be from its true dot product, in units of |q|: the length of the row's quantisation error plus the scan's
 * rounding. A row with a component that is not finite gets an infinite radius (every search rescores it).
 */
bool ce_quantize(const float *vectors, int64_t rows, int32_t dimensions, int8_t *codes, float *scales, float *radii,
                 char **error) CE_NOEXCEPT;

/**
 * What ce_exact_search returns, by reading the compact copy of the rows (ce_quantize) instead of `matrix`: every row
 * is scored from its codes; the best k of those are scored exactly, and so is every row whose compact score plus its
 * radius × |query| reaches the k-th best exact score found, and only those. The answer is the exact top k: the
 * score of a row is its dot product with `query` summed in double precision component by component (so ties and
 * near-ties come out as the true values order them, ties by lower row), returned as float. `*rescored`, when not
 * NULL, receives how many rows were read from `matrix`. `scores` is scratch of `rows` floats.
 */
bool ce_exact_search_compact(const float *matrix, const int8_t *codes, const float *scales, const float *radii,
                             int64_t rows, int32_t dimensions, const float *query, int32_t k, const uint8_t *allowed,
                             float *scores, int64_t *best_rows, float *best_scores, int32_t *found, int64_t *rescored,
                             char **error) CE_NOEXCEPT;

/* MARK: - Distance kernels */

/** The dot product loop an HNSW graph measures distances with. */
typedef enum ce_distance_kernel {
    CE_KERNEL_AUTOMATIC = 0, /**< CE_KERNEL_AVX2 where the processor has AVX2 and FMA, CE_KERNEL_PORTABLE elsewhere. */
    CE_KERNEL_PORTABLE = 1,  /**< A plain loop with eight partial sums, on any processor. */
    CE_KERNEL_AVX2 = 2,      /**< AVX2 with fused multiply-adds, chosen at run time (x86-64 only). */
    CE_KERNEL_HNSWLIB = 3,   /**< hnswlib's own loop, its SIMD chosen at compile time (SSE in a portable build). */
} ce_distance_kernel;

/** Whether this processor runs `kernel`. */
bool ce_distance_kernel_available(ce_distance_kernel kernel) CE_NOEXCEPT;
/** The kernel CE_KERNEL_AUTOMATIC stands for on this processor; any other kernel as it is. */
ce_distance_kernel ce_distance_kernel_resolved(ce_distance_kernel kernel) CE_NOEXCEPT;
/** The dot product of `a` and `b` (`dimensions` floats each, any alignment) computed by `kernel`, in `*product`. */
bool ce_inner_product(ce_distance_kernel kernel, const float *a, const float *b, int32_t dimensions, float *product,
                      char **error) CE_NOEXCEPT;

/* MARK: - Files and statistics */

/** A 64-bit checksum of `length` bytes, seeded with `seed` (a previous checksum, to chain several buffers). */
uint64_t ce_checksum(const void *bytes, int64_t length, uint64_t seed) CE_NOEXCEPT;

/**
 * A 64-bit checksum of the whole file at `path` (any change of its bytes changes it with near certainty) in
 * `*checksum`, and its length in `*bytes` when not NULL.
 */
bool ce_file_checksum(const char *path, uint64_t *checksum, int64_t *bytes, char **error) CE_NOEXCEPT;

/**
 * The covariance spectrum of `rows` vectors ([rows, dimensions], row-major; rows ≥ 2): the covariance matrix's
 * eigenvalues, largest first, in `eigenvalues`, and the mean vector's coordinate along each eigenvector, in the same
 * order, in `mean_coordinates` (`dimensions` each). What a Gaussian with the same mean and covariance needs, up to a
 * rotation (which inner products do not see).
 */
bool ce_spectrum(const float *vectors, int64_t rows, int32_t dimensions, double *eigenvalues, double *mean_coordinates,
                 char **error) CE_NOEXCEPT;

/* MARK: - HNSW (hnswlib, inner product over normalised vectors) */

typedef struct ce_hnsw ce_hnsw;

/** An empty graph for vectors of `dimensions`, room for `capacity` (it grows when full), measuring with `kernel`. */
ce_hnsw *ce_hnsw_new(int32_t dimensions, int64_t capacity, int32_t m, int32_t ef_construction, uint64_t seed,
                     ce_distance_kernel kernel, char **error) CE_NOEXCEPT;
/**
 * A graph saved by ce_hnsw_save at `path`, measuring with `kernel`. hnswlib checks that the file's length fits its
 * header; a file altered within that length is not detected here (ce_file_checksum is how callers check it).
 */
ce_hnsw *ce_hnsw_load(const char *path, int32_t dimensions, ce_distance_kernel kernel, char **error) CE_NOEXCEPT;
void ce_hnsw_free(ce_hnsw *index) CE_NOEXCEPT;
/** Writes the graph to `path` (replacing it), and checks that every byte was written. */
bool ce_hnsw_save(ce_hnsw *index, const char *path, char **error) CE_NOEXCEPT;
/** The graph's dimensions, M, efConstruction and (resolved) distance kernel; any pointer may be NULL. */
bool ce_hnsw_describe(const ce_hnsw *index, int32_t *dimensions, int32_t *m, int32_t *ef_construction,
                      ce_distance_kernel *kernel) CE_NOEXCEPT;
/** Adds `vector` under `label`, or replaces the vector of an existing label (undeleting it). */
bool ce_hnsw_add(ce_hnsw *index, const float *vector, uint64_t label, char **error) CE_NOEXCEPT;
/**
 * Adds `count` vectors ([count, dimensions], row-major) under `labels` (distinct), on `threads` threads at once (the
 * caller's included; hnswlib's insertion locks each node it links). The graph grows first to hold them all. Every
 * `progress_step` vectors added, the caller's thread calls `progress(context, added)` when `progress` is not NULL.
 * On failure the vectors added before it stay in the graph.
 */
bool ce_hnsw_add_all(ce_hnsw *index, const float *vectors, const uint64_t *labels, int64_t count, int32_t threads,
                     void (*progress)(void *context, int64_t added), void *context, int64_t progress_step,
                     char **error) CE_NOEXCEPT;
/** Marks `label` deleted; a label not in the graph, or already deleted, is not an error. */
bool ce_hnsw_remove(ce_hnsw *index, uint64_t label, char **error) CE_NOEXCEPT;
/** Elements in the graph, deleted ones included. */
int64_t ce_hnsw_count(const ce_hnsw *index) CE_NOEXCEPT;
/** Elements marked deleted. */
int64_t ce_hnsw_deleted_count(const ce_hnsw *index) CE_NOEXCEPT;
/**
 * The (about) `k` nearest labels to `query` by inner product, best first, searched with a candidate list of
 * `ef` (at least k); `*found` says how many.
 */
bool ce_hnsw_search(ce_hnsw *index, const float *query, int32_t k, int32_t ef, uint64_t *labels, float *scores,
                    int32_t *found, char **error) CE_NOEXCEPT;

/* MARK: - Threads */

/** OpenBLAS's thread count (what the matrix products use). */
int32_t ce_blas_threads(void) CE_NOEXCEPT;
/** Sets OpenBLAS's thread count. */
void ce_set_blas_threads(int32_t threads) CE_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
