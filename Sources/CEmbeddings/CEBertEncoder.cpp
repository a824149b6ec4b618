#include "CEInternal.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

struct ce_bert {
    ce_bert_config config;
    ce_bert_weights weights;
    std::vector<ce_bert_layer> layers;
    // Each layer's query, key and value weights [3 * hidden, hidden] and biases one after another: one matrix product
    // instead of three, which OpenBLAS runs faster and with a third of the threads' hand-overs.
    std::vector<std::vector<float>> qkv_weights, qkv_biases;
    // Scratch, grown to the largest call: every buffer holds one row per token of the call.
    std::vector<float> hidden, qkv, context, projected, intermediate, scores;
};

// The element-wise loops below are compiled twice on x86-64, for AVX2 with FMA and for the baseline, and the loader
// picks one for the processor at hand: the baseline alone is 4 floats wide and calls floorf. Not under a sanitizer:
// the loader runs the choosing function (an ifunc resolver) before the sanitizer's runtime is ready, and the
// instrumented resolver crashes the process at start.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define CE_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__clang__) && !defined(CE_SANITIZED)
#define CE_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CE_VECTOR_CLONES
#endif

namespace {

// y[rows, out] = x[rows, in] · weightᵀ + bias, with `weight` stored [out, in] as PyTorch's Linear keeps it.
// `y_stride` lets the query, key and value projections write side by side into one buffer.
void linear(const float *x, int rows, int in, const float *weight, const float *bias, int out, float *y,
            int y_stride) noexcept {
    for (int row = 0; row < rows; ++row) std::memcpy(y + size_t(row) * y_stride, bias, sizeof(float) * out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0f, x, in, weight, in, 1.0f, y, y_stride);
}

// The sum of `count` floats in eight running sums, which the compiler keeps in one vector register (a single running
// sum must be added in order, one float at a time).
inline float sum_of(const float *values, int count) noexcept {
    float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        for (int j = 0; j < 8; ++j) partial[j] += values[i + j];
    }
    float sum = 0;
    for (; i < count; ++i) sum += values[i];
    for (int j = 0; j < 8; ++j) sum += partial[j];
    return sum;
}

// x = LayerNorm(x + residual) over each row of `width`, in place in x.
CE_VECTOR_CLONES void add_and_normalize(float *x, const float *residual, int rows, int width, const float *gamma, const float *beta,
                       float epsilon) noexcept {
    for (int row = 0; row < rows; ++row) {
        float *values = x + size_t(row) * width;
        if (residual != nullptr) {
            const float *added = residual + size_t(row) * width;
            for (int i = 0; i < width; ++i) values[i] += added[i];
        }
        float mean = sum_of(values, width) / float(width);
        float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int i = 0;
        for (; i + 8 <= width; i += 8) {
            for (int j = 0; j < 8; ++j) {
                float centred = values[i + j] - mean;
                partial[j] += centred * centred;
            }
        }
        float squares = 0;
        for (; i < width; ++i) squares += (values[i] - mean) * (values[i] - mean);
        for (int j = 0; j < 8; ++j) squares += partial[j];
        float scale = 1.0f / std::sqrt(squares / float(width) + epsilon);
        for (int i = 0; i < width; ++i) values[i] = (values[i] - mean) * scale * gamma[i] + beta[i];
    }
}

// e^u for u <= 0, within 2 ulp; written without library calls so that the loops calling it are vectorised (the
// library's erff and expf are scalar calls and were a fifth of an encoding's time, beside the matrix products).
// Cody-Waite reduction to r in [-ln 2 / 2, ln 2 / 2], a degree-7 polynomial (Cephes' expf), then 2^n by the exponent
// bits; below -87 the result would be subnormal, and 0 is as good for softmax and GELU.
inline float exp_nonpositive(float u) noexcept {
    u = u < -87.0f ? -87.0f : u;
    // floor by truncation, one lower for negatives with a fraction: std::floor is a library call without SSE4.1.
    const float y = u * 1.44269504088896341f + 0.5f;
    const float truncated = float(int32_t(y));
    const float n = truncated > y ? truncated - 1.0f : truncated;
    float r = u - n * 0.693359375f;
    r = r + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    const int32_t bits = (int32_t(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

CE_VECTOR_CLONES void activate(float *x, size_t count, ce_activation activation) noexcept {
    if (activation == CE_ACTIVATION_GELU) {
        // The exact GELU, 0.5 x (1 + erf(x / sqrt 2)), with erf from Abramowitz and Stegun 7.1.26 (absolute error
        // below 1.5e-7, under a float's rounding at the sizes that matter) on |x| and its sign restored.
        const float inverse_root_two = 0.70710678118654752f;
        for (size_t i = 0; i < count; ++i) {
            const float v = x[i];
            const float z = std::fabs(v) * inverse_root_two;
            const float t = 1.0f / (1.0f + 0.3275911f * z);
            const float poly =
                t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
            const float erf_abs = 1.0f - poly * exp_nonpositive(-z * z);
            x[i] = 0.5f * v * (1.0f + std::copysign(erf_abs, v));
        }
    } else {
        const float root_two_over_pi = 0.79788456080286536f;
        for (size_t i = 0; i < count; ++i) {
            float v = x[i];
            x[i] = 0.5f * v * (1.0f + std::tanh(root_two_over_pi * (v + 0.044715f * v * v * v)));
        }
    }
}

CE_VECTOR_CLONES void softmax_rows(float *scores, int rows, int width) noexcept {
    for (int row = 0; row < rows; ++row) {
        float *values = scores + size_t(row) * width;
        float largest = values[0];
        for (int i = 1; i < width; ++i) largest = std::max(largest, values[i]);
        for (int i = 0; i < width; ++i) values[i] = exp_nonpositive(values[i] - largest);
        float inverse = 1.0f / sum_of(values, width);
        for (int i = 0; i < width; ++i) values[i] *= inverse;
    }
}

template <typename T> void ensure(std::vector<T> &buffer, size_t count) {
    if (buffer.size() < count) buffer.resize(count);
}

bool check_config(const ce_bert_config &config, const ce_bert_weights &weights, char **error) noexcept {
    if (config.hidden <= 0 || config.heads <= 0 || config.hidden % config.heads != 0) {
        ce::set_error(error, "hidden_size must be a positive multiple of num_attention_heads");
        return false;
    }
    if (config.intermediate <= 0 || config.layers <= 0 || config.vocabulary <= 0 || config.positions <= 0) {
        ce::set_error(error, "intermediate_size, num_hidden_layers, vocab_size and max_position_embeddings must be positive");
        return false;
    }
    if (config.pooling != CE_POOLING_MEAN && config.pooling != CE_POOLING_CLS) {
        ce::set_error(error, "unknown pooling");
        return false;
    }
    if (config.activation != CE_ACTIVATION_GELU && config.activation != CE_ACTIVATION_GELU_TANH) {
        ce::set_error(error, "unknown activation");
        return false;
    }
    if (weights.word_embeddings == nullptr || weights.position_embeddings == nullptr ||
        weights.token_type_embeddings == nullptr || weights.embedding_norm_weight == nullptr ||
        weights.embedding_norm_bias == nullptr || weights.layers == nullptr) {
        ce::set_error(error, "an embedding tensor is missing");
        return false;
    }
    for (int l = 0; l < config.layers; ++l) {
        const ce_bert_layer &layer = weights.layers[l];
        const float *tensors[] = {layer.query_weight, layer.query_bias, layer.key_weight, layer.key_bias,
                                  layer.value_weight, layer.value_bias, layer.attention_output_weight,
                                  layer.attention_output_bias, layer.attention_norm_weight, layer.attention_norm_bias,
                                  layer.intermediate_weight, layer.intermediate_bias, layer.output_weight,
                                  layer.output_bias, layer.output_norm_weight, layer.output_norm_bias};
        for (const float *tensor : tensors) {
            if (tensor == nullptr) {
                ce::set_error(error, "a tensor of layer " + std::to_string(l) + " is missing");
                return false;
            }
        }
    }
    return true;
}

} // namespace

ce_bert *ce_bert_new(const ce_bert_config *config, const ce_bert_weights *weights, char **error) noexcept {
    if (config == nullptr || weights == nullptr) {
        ce::set_error(error, "ce_bert_new: no configuration or weights");
        return nullptr;
    }
    if (!check_config(*config, *weights, error)) return nullptr;
    try {
        ce_bert *encoder = new ce_bert();
        encoder->config = *config;
        encoder->weights = *weights;
        encoder->layers.assign(weights->layers, weights->layers + config->layers);
        encoder->weights.layers = encoder->layers.data();
        const size_t hidden = size_t(config->hidden);
        for (const ce_bert_layer &layer : encoder->layers) {
            std::vector<float> weight(3 * hidden * hidden), bias(3 * hidden);
            const float *parts[] = {layer.query_weight, layer.key_weight, layer.value_weight};
            const float *biases[] = {layer.query_bias, layer.key_bias, layer.value_bias};
            for (size_t part = 0; part < 3; ++part) {
                std::memcpy(weight.data() + part * hidden * hidden, parts[part], sizeof(float) * hidden * hidden);
                std::memcpy(bias.data() + part * hidden, biases[part], sizeof(float) * hidden);
            }
            encoder->qkv_weights.push_back(std::move(weight));
            encoder->qkv_biases.push_back(std::move(bias));
        }
        return encoder;
    } catch (...) {
        ce::set_current_error(error, "creating the encoder");
        return nullptr;
    }
}

void ce_bert_free(ce_bert *encoder) noexcept { delete encoder; }

bool ce_bert_encode(ce_bert *encoder, const int32_t *token_ids, const int32_t *lengths, int32_t count,
                    float *vectors, char **error) noexcept {
    if (encoder == nullptr || token_ids == nullptr || lengths == nullptr || vectors == nullptr || count < 0) {
        ce::set_error(error, "ce_bert_encode: missing argument");
        return false;
    }
    const ce_bert_config &config = encoder->config;
    const int hidden = config.hidden, heads = config.heads, head_size = hidden / heads;
    size_t tokens = 0;
    int longest = 0;
    for (int32_t s = 0; s < count; ++s) {
        if (lengths[s] < 1 || lengths[s] > config.positions) {
            ce::set_error(error, "sequence " + std::to_string(s) + " has " + std::to_string(lengths[s]) +
                                     " tokens; the model takes 1 to " + std::to_string(config.positions));
            return false;
        }
        tokens += size_t(lengths[s]);
        longest = std::max(longest, int(lengths[s]));
    }
    for (size_t t = 0; t < tokens; ++t) {
        if (token_ids[t] < 0 || token_ids[t] >= config.vocabulary) {
            ce::set_error(error, "token id " + std::to_string(token_ids[t]) + " is outside the vocabulary of " +
                                     std::to_string(config.vocabulary));
            return false;
        }
    }
    if (count == 0) return true;
    try {
        ensure(encoder->hidden, tokens * hidden);
        ensure(encoder->qkv, tokens * hidden * 3);
        ensure(encoder->context, tokens * hidden);
        ensure(encoder->projected, tokens * hidden);
        ensure(encoder->intermediate, tokens * size_t(config.intermediate));
        ensure(encoder->scores, size_t(longest) * longest);
    } catch (...) {
        ce::set_current_error(error, "encoding");
        return false;
    }
    const int rows = int(tokens);
    float *x = encoder->hidden.data(), *qkv = encoder->qkv.data(), *context = encoder->context.data();
    float *projected = encoder->projected.data(), *intermediate = encoder->intermediate.data();
    float *scores = encoder->scores.data();
    const ce_bert_weights &w = encoder->weights;

    // Embeddings: word + position (from 0 in each sequence) + token type 0, then LayerNorm.
    size_t t = 0;
    for (int32_t s = 0; s < count; ++s) {
        for (int32_t p = 0; p < lengths[s]; ++p, ++t) {
            float *row = x + t * hidden;
            const float *word = w.word_embeddings + size_t(token_ids[t]) * hidden;
            const float *position = w.position_embeddings + size_t(p) * hidden;
            for (int i = 0; i < hidden; ++i) row[i] = word[i] + position[i] + w.token_type_embeddings[i];
        }
    }
    add_and_normalize(x, nullptr, rows, hidden, w.embedding_norm_weight, w.embedding_norm_bias, config.norm_epsilon);

    const float scale = 1.0f / std::sqrt(float(head_size));
    const int qkv_stride = 3 * hidden;
    for (int l = 0; l < config.layers; ++l) {
        const ce_bert_layer &layer = w.layers[l];
        linear(x, rows, hidden, encoder->qkv_weights[size_t(l)].data(), encoder->qkv_biases[size_t(l)].data(), qkv_stride,
               qkv, qkv_stride);
        size_t offset = 0;
        for (int32_t s = 0; s < count; ++s) {
            const int length = lengths[s];
            for (int h = 0; h < heads; ++h) {
                const float *q = qkv + offset * qkv_stride + h * head_size;
                const float *k = q + hidden;
                const float *v = q + 2 * hidden;
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, length, length, head_size, scale, q, qkv_stride,
                            k, qkv_stride, 0.0f, scores, length);
                softmax_rows(scores, length, length);
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, length, head_size, length, 1.0f, scores,
                            length, v, qkv_stride, 0.0f, context + offset * hidden + h * head_size, hidden);
            }
            offset += size_t(length);
        }
        linear(context, rows, hidden, layer.attention_output_weight, layer.attention_output_bias, hidden, projected,
               hidden);
        add_and_normalize(x, projected, rows, hidden, layer.attention_norm_weight, layer.attention_norm_bias,
                          config.norm_epsilon);
        linear(x, rows, hidden, layer.intermediate_weight, layer.intermediate_bias, config.intermediate, intermediate,
               config.intermediate);
        activate(intermediate, tokens * size_t(config.intermediate), config.activation);
        linear(intermediate, rows, config.intermediate, layer.output_weight, layer.output_bias, hidden, projected,
               hidden);
        add_and_normalize(x, projected, rows, hidden, layer.output_norm_weight, layer.output_norm_bias,
                          config.norm_epsilon);
    }

    size_t offset = 0;
    for (int32_t s = 0; s < count; ++s) {
        float *vector = vectors + size_t(s) * hidden;
        const float *first = x + offset * hidden;
        if (config.pooling == CE_POOLING_CLS) {
            std::memcpy(vector, first, sizeof(float) * hidden);
        } else {
            std::fill(vector, vector + hidden, 0.0f);
            for (int p = 0; p < lengths[s]; ++p) {
                const float *row = first + size_t(p) * hidden;
                for (int i = 0; i < hidden; ++i) vector[i] += row[i];
            }
            float inverse = 1.0f / float(lengths[s]);
            for (int i = 0; i < hidden; ++i) vector[i] *= inverse;
        }
        double norm = 0;
        for (int i = 0; i < hidden; ++i) norm += double(vector[i]) * vector[i];
        // As sentence-transformers' Normalize: divide by max(‖v‖, 1e-12).
        float inverse = 1.0f / float(std::max(std::sqrt(norm), 1e-12));
        for (int i = 0; i < hidden; ++i) vector[i] *= inverse;
        offset += size_t(lengths[s]);
    }
    return true;
}
