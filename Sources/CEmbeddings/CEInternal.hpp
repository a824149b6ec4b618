#pragma once

#include "CEmbeddings.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

namespace ce {

// Whether this processor runs AVX2 and FMA instructions, asked once (`__builtin_cpu_supports`): kernels are chosen
// at run time, never by the loader, because an ifunc resolver crashes sanitizer builds.
bool has_avx2_fma() noexcept;

// Stores `message` in `*error` for the caller; when even that allocation fails, a static text would have to be
// freed by the caller, so it is left NULL there and the failure value alone reports the error.
inline void set_error(char **error, const char *message) noexcept {
    if (error == nullptr) return;
    size_t length = std::strlen(message);
    char *copy = static_cast<char *>(std::malloc(length + 1));
    if (copy == nullptr) return;
    std::memcpy(copy, message, length + 1);
    *error = copy;
}

inline void set_error(char **error, const std::string &message) noexcept { set_error(error, message.c_str()); }

// Turns the exception being handled into an error message.
inline void set_current_error(char **error, const char *operation) noexcept {
    try {
        throw;
    } catch (const std::bad_alloc &) {
        set_error(error, std::string(operation) + ": out of memory");
    } catch (const std::exception &exception) {
        try {
            set_error(error, std::string(operation) + ": " + exception.what());
        } catch (...) {
            set_error(error, operation);
        }
    } catch (...) {
        set_error(error, std::string(operation) + ": unknown error");
    }
}

} // namespace ce
