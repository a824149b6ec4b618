#include "CXKeywordFieldProcessor.hpp"

namespace cx {

Xapian::Query KeywordFieldProcessor::operator()(const std::string &value) {
    if (value.empty() || value.back() != '*') return Xapian::Query(prefix_ + value);
    return Xapian::Query(Xapian::Query::OP_WILDCARD, prefix_ + value.substr(0, value.size() - 1), *max_expansion_,
                         Xapian::Query::WILDCARD_LIMIT_ERROR, Xapian::Query::OP_OR);
}

} // namespace cx
