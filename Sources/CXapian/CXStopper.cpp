#include "CXInternal.hpp"

#include <algorithm>

namespace {

// The Snowball project's English stop word list: function words that carry no meaning for search.
const char *const english_stop_words[] = {
    "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours", "yourself",
    "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself",
    "they", "them", "their", "theirs", "themselves", "what", "which", "who", "whom", "this", "that", "these",
    "those", "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do",
    "does", "did", "doing", "would", "should", "could", "ought", "i'm", "you're", "he's", "she's", "it's",
    "we're", "they're", "i've", "you've", "we've", "they've", "i'd", "you'd", "he'd", "she'd", "we'd",
    "they'd", "i'll", "you'll", "he'll", "she'll", "we'll", "they'll", "isn't", "aren't", "wasn't", "weren't",
    "hasn't", "haven't", "hadn't", "doesn't", "don't", "didn't", "won't", "wouldn't", "shan't", "shouldn't",
    "can't", "cannot", "couldn't", "mustn't", "let's", "that's", "who's", "what's", "here's", "there's",
    "when's", "where's", "why's", "how's", "a", "an", "the", "and", "but", "if", "or", "because", "as",
    "until", "while", "of", "at", "by", "for", "with", "about", "against", "between", "into", "through",
    "during", "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off",
    "over", "under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how", "all",
    "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own",
    "same", "so", "than", "too", "very",
};

} // namespace

extern "C" {

cx_stopper *cx_stopper_new(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_stopper *>(nullptr), [&] { return new cx_stopper(); });
}

cx_stopper *cx_stopper_new_english(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_stopper *>(nullptr), [&] {
        auto *stopper = new cx_stopper();
        try {
            stopper->words.assign(std::begin(english_stop_words), std::end(english_stop_words));
        } catch (...) {
            delete stopper;
            throw;
        }
        return stopper;
    });
}

bool cx_stopper_add(cx_stopper *stopper, const char *word, size_t word_len, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(stopper, "stopper");
        std::string text = cx::bytes(word, word_len, "word");
        if (text.empty()) cx::invalid_argument("stop word is empty; give at least one character");
        stopper->words.push_back(std::move(text));
        return true;
    });
}

bool cx_stopper_contains(const cx_stopper *stopper, const char *word, size_t word_len) noexcept {
    if (stopper == nullptr || (word == nullptr && word_len != 0)) return false;
    try {
        std::string text = word == nullptr ? std::string() : std::string(word, word_len);
        return std::find(stopper->words.begin(), stopper->words.end(), text) != stopper->words.end();
    } catch (...) {
        return false;
    }
}

void cx_stopper_free(cx_stopper *stopper) noexcept {
    delete stopper;
}

} // extern "C"
