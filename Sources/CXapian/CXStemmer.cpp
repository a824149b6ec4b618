#include "CXInternal.hpp"

#include <unordered_map>

namespace {

// Snowball stemmers are pure functions of the word: remembering their answers changes nothing but the time. A snippet
// stems every word of its text (Xapian's MSet::snippet), which cost more than the rest of the snippet, while the
// words of one collection's texts recur from hit to hit and search to search.
class RememberingStemmer : public Xapian::StemImplementation {
public:
    RememberingStemmer(Xapian::Stem stemmer, size_t capacity) : stemmer_(std::move(stemmer)), capacity_(capacity) {}

    std::string operator()(const std::string &word) override {
        auto found = stems_.find(word);
        if (found != stems_.end()) return found->second;
        std::string stem = stemmer_(word);
        // Full: start again rather than grow without end (a long-lived searcher sees ever new words).
        if (stems_.size() >= capacity_) stems_.clear();
        if (capacity_ > 0) stems_.emplace(word, stem);
        return stem;
    }

    std::string get_description() const override { return stemmer_.get_description(); }

private:
    Xapian::Stem stemmer_;
    size_t capacity_;
    std::unordered_map<std::string, std::string> stems_;
};

} // namespace

extern "C" {

cx_stemmer *cx_stemmer_new(const char *language, size_t capacity, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_stemmer *>(nullptr), [&] {
        Xapian::Stem stemmer = cx::stemmer(language);
        auto *handle = new cx_stemmer();
        try {
            // No stemming stays no stemming: Xapian skips an empty Stem altogether.
            if (!stemmer.is_none()) handle->stem = Xapian::Stem(new RememberingStemmer(stemmer, capacity));
        } catch (...) {
            delete handle;
            throw;
        }
        return handle;
    });
}

bool cx_stemmer_stem(cx_stemmer *stemmer, const char *word, size_t word_len, char **out, size_t *out_len,
                     cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::copy_out(cx::require(stemmer, "stemmer")->stem(cx::bytes(word, word_len, "word")), out, out_len);
        return true;
    });
}

void cx_stemmer_free(cx_stemmer *stemmer) noexcept {
    try {
        delete stemmer;
    } catch (...) {
    }
}

} // extern "C"
