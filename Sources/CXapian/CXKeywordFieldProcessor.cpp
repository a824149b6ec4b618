#include "CXKeywordFieldProcessor.hpp"
#include "CXInternal.hpp"

namespace cx {

Xapian::Query KeywordFieldProcessor::operator()(const std::string &value) {
    if (value.empty() || value.back() != '*') return Xapian::Query(prefix_ + value);
    return prefix_wildcard(prefix_ + value.substr(0, value.size() - 1), *max_expansion_);
}

} // namespace cx
