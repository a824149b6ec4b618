#include "CXInternal.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

// Snowball stemmers are pure functions of the word: remembering their answers changes nothing but the time. A snippet
// stems every word of its text (Xapian's MSet::snippet), which cost more than the rest of the snippet, while the
// words of one collection's texts recur from hit to hit and search to search.
//
// Looking a word up is then most of a snippet's stemming, and with tens of thousands of words remembered each lookup
// waits on memory: a node-based map (std::unordered_map) took three dependent cache misses a word, a sixteenth of a
// batch search. Here an open-addressing index of small slots (a tag of the word's hash and the entry's place, at most
// half full) points into dense entries that hold the word and its stem inline: about one miss a word.
class RememberingStemmer : public Xapian::StemImplementation {
public:
    RememberingStemmer(Xapian::Stem stemmer, size_t capacity)
        : stemmer_(std::move(stemmer)), capacity_(std::min(capacity, max_capacity)) {
        if (capacity_ == 0) return;
        size_t slots = 16;
        while (slots < capacity_ * 2) slots *= 2;
        slots_.assign(slots, Slot{0, 0});
    }

    std::string operator()(const std::string &word) override {
        if (capacity_ == 0) return stemmer_(word);
        const uint64_t hash = std::hash<std::string_view>{}(std::string_view(word));
        const uint32_t tag = uint32_t(hash >> 32) | 1;  // 0 marks an empty slot
        const size_t mask = slots_.size() - 1;
        for (size_t index = size_t(hash) & mask; slots_[index].tag != 0; index = (index + 1) & mask) {
            if (slots_[index].tag != tag) continue;
            const Entry &entry = entries_[slots_[index].entry];
            if (entry.word_length == word.size() && std::memcmp(entry.bytes, word.data(), word.size()) == 0) {
                return std::string(entry.bytes + entry.word_length, entry.stem_length);
            }
        }
        std::string stem = stemmer_(word);
        // Words too long for an entry (rare: over about 30 bytes) are stemmed each time.
        if (word.size() + stem.size() <= sizeof(Entry::bytes)) remember(hash, tag, word, stem);
        return stem;
    }

    std::string get_description() const override { return stemmer_.get_description(); }

private:
    struct Slot {
        uint32_t tag;
        uint32_t entry;
    };
    // One cache line: the word's bytes, then its stem's.
    struct Entry {
        uint8_t word_length;
        uint8_t stem_length;
        char bytes[62];
    };
    // Keeps the slots' entry numbers in 32 bits and the index's memory bounded whatever the caller asks.
    static constexpr size_t max_capacity = size_t(1) << 24;

    void remember(uint64_t hash, uint32_t tag, const std::string &word, const std::string &stem) {
        // Full: start again rather than grow without end (a long-lived searcher sees ever new words).
        if (entries_.size() >= capacity_) {
            std::fill(slots_.begin(), slots_.end(), Slot{0, 0});
            entries_.clear();
        }
        const size_t mask = slots_.size() - 1;
        size_t index = size_t(hash) & mask;
        while (slots_[index].tag != 0) index = (index + 1) & mask;
        slots_[index] = Slot{tag, uint32_t(entries_.size())};
        Entry entry;
        entry.word_length = uint8_t(word.size());
        entry.stem_length = uint8_t(stem.size());
        std::memcpy(entry.bytes, word.data(), word.size());
        std::memcpy(entry.bytes + word.size(), stem.data(), stem.size());
        entries_.push_back(entry);
    }

    Xapian::Stem stemmer_;
    size_t capacity_;
    std::vector<Slot> slots_;
    std::vector<Entry> entries_;
};

} // namespace

Xapian::Stem cx::remembering(const Xapian::Stem &stemmer, size_t capacity) {
    // Xapian skips an empty Stem altogether: wrapping it would stem every word into nothing.
    if (stemmer.is_none() || capacity == 0) return stemmer;
    return Xapian::Stem(new RememberingStemmer(stemmer, capacity));
}

extern "C" {

cx_stemmer *cx_stemmer_new(const char *language, size_t capacity, cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_stemmer *>(nullptr), [&] {
        Xapian::Stem stemmer = cx::stemmer(language);
        auto *handle = new cx_stemmer();
        try {
            handle->stem = cx::remembering(stemmer, capacity);
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
