#include "CEInnerProduct.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ce {

bool has_avx2_fma() noexcept {
#if defined(__x86_64__)
    static const bool supported = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return supported;
#else
    return false;
#endif
}

float inner_product_portable(const float *a, const float *b, size_t dimensions) noexcept {
    // Eight partial sums: independent chains of additions the compiler can keep in vector registers.
    float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= dimensions; i += 8) {
        for (size_t j = 0; j < 8; ++j) partial[j] += a[i + j] * b[i + j];
    }
    float sum = 0;
    for (; i < dimensions; ++i) sum += a[i] * b[i];
    return sum + ((partial[0] + partial[1]) + (partial[2] + partial[3])) + ((partial[4] + partial[5]) + (partial[6] + partial[7]));
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float inner_product_avx2(const float *a, const float *b, size_t dimensions) noexcept {
    // Four accumulators hide the latency of the fused multiply-adds (each waits for the previous one of its chain).
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= dimensions; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    for (; i + 8 <= dimensions; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    float sum = _mm_cvtss_f32(h);
    for (; i < dimensions; ++i) sum += a[i] * b[i];
    return sum;
}
#endif

float distance_portable(const void *a, const void *b, const void *dimensions) {
    return 1.0f - inner_product_portable(static_cast<const float *>(a), static_cast<const float *>(b),
                                         *static_cast<const size_t *>(dimensions));
}

#if defined(__x86_64__)
float distance_avx2(const void *a, const void *b, const void *dimensions) {
    return 1.0f - inner_product_avx2(static_cast<const float *>(a), static_cast<const float *>(b),
                                     *static_cast<const size_t *>(dimensions));
}
#endif

ce_distance_kernel resolved_kernel(ce_distance_kernel kernel) noexcept {
    if (kernel == CE_KERNEL_AUTOMATIC) return has_avx2_fma() ? CE_KERNEL_AVX2 : CE_KERNEL_PORTABLE;
    return kernel;
}

} // namespace ce

bool ce_distance_kernel_available(ce_distance_kernel kernel) noexcept {
    switch (kernel) {
    case CE_KERNEL_AUTOMATIC:
    case CE_KERNEL_PORTABLE:
    case CE_KERNEL_HNSWLIB:
        return true;
    case CE_KERNEL_AVX2:
        return ce::has_avx2_fma();
    }
    return false;
}

ce_distance_kernel ce_distance_kernel_resolved(ce_distance_kernel kernel) noexcept { return ce::resolved_kernel(kernel); }
