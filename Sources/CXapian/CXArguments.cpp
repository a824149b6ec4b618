// Conversions between C arguments and C++ values, shared by every entry point.
#include "CXInternal.hpp"

namespace cx {

std::string bytes(const char *pointer, size_t length, const char *what) {
    if (pointer == nullptr) {
        if (length != 0) invalid_argument(std::string(what) + " is NULL but its length is " + std::to_string(length));
        return std::string();
    }
    return std::string(pointer, length);
}

std::string c_string(const char *pointer, const char *what) {
    if (pointer == nullptr) invalid_argument(std::string(what) + " is NULL");
    return std::string(pointer);
}

void copy_out(const std::string &value, char **out, size_t *out_len) {
    if (out == nullptr) invalid_argument("the output pointer is NULL");
    char *copy = static_cast<char *>(std::malloc(value.size() + 1));
    if (copy == nullptr) throw std::bad_alloc();
    if (!value.empty()) std::memcpy(copy, value.data(), value.size());
    copy[value.size()] = '\0';
    *out = copy;
    if (out_len != nullptr) *out_len = value.size();
}

Xapian::Stem stemmer(const char *language) {
    if (language == nullptr || *language == '\0') return Xapian::Stem();
    try {
        return Xapian::Stem(language);
    } catch (const Xapian::InvalidArgumentError &) {
        throw Xapian::InvalidArgumentError(std::string("unknown stemmer language '") + language +
                                           "'; use \"none\" or one of: " + Xapian::Stem::get_available_languages());
    }
}

const Xapian::Stopper *make_stopper(const cx_stopper *stopper) {
    if (stopper == nullptr) return nullptr;
    return (new Xapian::SimpleStopper(stopper->words.begin(), stopper->words.end()))->release();
}

std::string unique_term(const char *term, size_t term_len) {
    std::string unique = bytes(term, term_len, "unique term");
    if (unique.empty()) invalid_argument("unique term is empty; give the document's id term (e.g. \"Q\" + id)");
    return unique;
}

} // namespace cx
