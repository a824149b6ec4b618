#include "CEInternal.hpp"

#include <cblas.h>

#include <algorithm>
#include <vector>

// LAPACK's symmetric eigensolver, in OpenBLAS (Debian builds it with LAPACK). The trailing lengths are gfortran's
// hidden arguments for the two one-character options.
extern "C" void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w,
                       double *work, const int *lwork, int *info, size_t jobz_length, size_t uplo_length);

bool ce_spectrum(const float *vectors, int64_t rows, int32_t dimensions, double *eigenvalues, double *mean_coordinates,
                 char **error) noexcept {
    if (vectors == nullptr || eigenvalues == nullptr || mean_coordinates == nullptr || rows < 2 || dimensions <= 0) {
        ce::set_error(error, "ce_spectrum: missing argument, or fewer than 2 vectors");
        return false;
    }
    try {
        const size_t d = size_t(dimensions);
        std::vector<double> mean(d, 0.0);
        for (int64_t r = 0; r < rows; ++r) {
            for (size_t i = 0; i < d; ++i) mean[i] += vectors[size_t(r) * d + i];
        }
        for (auto &m : mean) m /= double(rows);
        // The covariance, accumulated in double from centred slices of rows.
        std::vector<double> covariance(d * d, 0.0), slice;
        const int64_t slice_rows = 4096;
        for (int64_t start = 0; start < rows; start += slice_rows) {
            const int64_t count = std::min(slice_rows, rows - start);
            slice.assign(size_t(count) * d, 0.0);
            for (int64_t r = 0; r < count; ++r) {
                for (size_t i = 0; i < d; ++i) slice[size_t(r) * d + i] = double(vectors[size_t(start + r) * d + i]) - mean[i];
            }
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, dimensions, int(count), 1.0, slice.data(), dimensions, 1.0,
                        covariance.data(), dimensions);
        }
        for (auto &c : covariance) c /= double(rows - 1);
        // Row-major upper is column-major lower: the same symmetric matrix for LAPACK.
        const int n = dimensions;
        int info = 0, lwork = -1;
        double query = 0;
        std::vector<double> values(d);
        dsyev_("V", "L", &n, covariance.data(), &n, values.data(), &query, &lwork, &info, 1, 1);
        if (info != 0) {
            ce::set_error(error, "ce_spectrum: the eigensolver could not size its workspace");
            return false;
        }
        lwork = int(query);
        std::vector<double> work(size_t(std::max(lwork, 1)));
        dsyev_("V", "L", &n, covariance.data(), &n, values.data(), work.data(), &lwork, &info, 1, 1);
        if (info != 0) {
            ce::set_error(error, "ce_spectrum: the eigensolver did not converge");
            return false;
        }
        // Ascending from LAPACK; column j of the (column-major) result is the eigenvector of values[j].
        for (size_t k = 0; k < d; ++k) {
            const size_t j = d - 1 - k;
            eigenvalues[k] = std::max(values[j], 0.0);
            double coordinate = 0;
            for (size_t i = 0; i < d; ++i) coordinate += covariance[j * d + i] * mean[i];
            mean_coordinates[k] = coordinate;
        }
        return true;
    } catch (...) {
        ce::set_current_error(error, "ce_spectrum");
        return false;
    }
}
