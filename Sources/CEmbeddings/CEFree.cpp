#include "CEInternal.hpp"

#include <cblas.h>

void ce_free(void *pointer) noexcept { std::free(pointer); }

int32_t ce_blas_threads(void) noexcept { return openblas_get_num_threads(); }

void ce_set_blas_threads(int32_t threads) noexcept { openblas_set_num_threads(threads < 1 ? 1 : threads); }
