#include "CEInternal.hpp"

#include <cerrno>
#include <cstdio>
#include <vector>

namespace {

// A 64-bit mix of four lanes of 8-byte words (multiply, rotate, multiply, as fast non-cryptographic hashes do): any
// change of a bit changes the result with near certainty, and four independent lanes keep it near the speed of
// reading memory. It detects damage, not tampering.
constexpr uint64_t prime1 = 0x9E3779B185EBCA87ULL, prime2 = 0xC2B2AE3D27D4EB4FULL, prime3 = 0x165667B19E3779F9ULL;

inline uint64_t rotate(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t mix(uint64_t lane, uint64_t word) { return rotate(lane + word * prime2, 31) * prime1; }

uint64_t checksum(const unsigned char *bytes, size_t length, uint64_t seed) noexcept {
    uint64_t lanes[4] = {seed + prime1 + prime2, seed + prime2, seed, seed - prime1};
    const size_t words = length / 8;
    size_t w = 0;
    auto word = [bytes](size_t index) {
        uint64_t value;
        std::memcpy(&value, bytes + index * 8, 8);
        return value;
    };
    for (; w + 4 <= words; w += 4) {
        lanes[0] = mix(lanes[0], word(w));
        lanes[1] = mix(lanes[1], word(w + 1));
        lanes[2] = mix(lanes[2], word(w + 2));
        lanes[3] = mix(lanes[3], word(w + 3));
    }
    for (; w < words; ++w) lanes[0] = mix(lanes[0], word(w));
    uint64_t tail = 0;
    for (size_t i = words * 8; i < length; ++i) tail |= uint64_t(bytes[i]) << (8 * (i - words * 8));
    uint64_t h = rotate(lanes[0], 1) + rotate(lanes[1], 7) + rotate(lanes[2], 12) + rotate(lanes[3], 18);
    h = (h ^ mix(0, tail)) * prime1 + prime3;
    h ^= uint64_t(length) * prime3;
    h ^= h >> 33;
    h *= prime2;
    h ^= h >> 29;
    return h;
}

} // namespace

uint64_t ce_checksum(const void *bytes, int64_t length, uint64_t seed) noexcept {
    if (bytes == nullptr || length <= 0) return checksum(nullptr, 0, seed);
    return checksum(static_cast<const unsigned char *>(bytes), size_t(length), seed);
}

bool ce_file_checksum(const char *path, uint64_t *result, int64_t *bytes, char **error) noexcept {
    if (path == nullptr || result == nullptr) {
        ce::set_error(error, "ce_file_checksum: missing argument");
        return false;
    }
    std::FILE *file = std::fopen(path, "rb");
    if (file == nullptr) {
        ce::set_error(error, std::string("cannot open ") + path + ": " + std::strerror(errno));
        return false;
    }
    try {
        // Chunk after chunk, each chunk's checksum seeding the next.
        std::vector<unsigned char> buffer(size_t(1) << 20);
        uint64_t h = 0;
        int64_t total = 0;
        for (;;) {
            size_t read = std::fread(buffer.data(), 1, buffer.size(), file);
            if (read == 0) break;
            total += int64_t(read);
            h = checksum(buffer.data(), read, h);
        }
        const bool failed = std::ferror(file) != 0;
        std::fclose(file);
        if (failed) {
            ce::set_error(error, std::string("cannot read ") + path);
            return false;
        }
        *result = h;
        if (bytes != nullptr) *bytes = total;
        return true;
    } catch (...) {
        std::fclose(file);
        ce::set_current_error(error, (std::string("checksumming ") + path).c_str());
        return false;
    }
}
