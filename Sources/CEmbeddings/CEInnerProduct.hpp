#pragma once

#include "CEInternal.hpp"

#include <cstddef>

namespace ce {

// The dot product of two float vectors: the portable loop, and (x86-64) an AVX2/FMA loop. They sum in different
// orders, so their results differ by float rounding only. (hnswlib's own loops live in CEHNSWIndex.cpp: its main
// header defines functions that may be included in one file only.)
float inner_product_portable(const float *a, const float *b, size_t dimensions) noexcept;
#if defined(__x86_64__)
float inner_product_avx2(const float *a, const float *b, size_t dimensions) noexcept;
#endif

// hnswlib's distance for normalised vectors (1 − dot product) through those loops, with the dimensions as parameter.
float distance_portable(const void *a, const void *b, const void *dimensions);
#if defined(__x86_64__)
float distance_avx2(const void *a, const void *b, const void *dimensions);
#endif

// CE_KERNEL_AUTOMATIC resolved to the kernel this processor runs; the others as they are.
ce_distance_kernel resolved_kernel(ce_distance_kernel kernel) noexcept;

} // namespace ce
