#include "CXSingleValueFieldProcessor.hpp"
#include "CXIsoDateRangeProcessor.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace cx {

Xapian::Query SingleValueFieldProcessor::operator()(const std::string &value) {
    double first = 0, last = 0;
    if (kind_ == Kind::number) {
        const char *start = value.c_str();
        char *end = nullptr;
        errno = 0;
        first = std::strtod(start, &end);
        bool whole = !value.empty() && end == start + value.size() && errno == 0 && std::isfinite(first);
        if (!whole) {
            throw Xapian::QueryParserError("'" + value + "' is not a number, and " + field_ +
                                           " is a number field; write " + field_ + ":42 or a range " + field_ +
                                           ":10..20");
        }
        last = first;
    } else if (!IsoDateRangeProcessor::period(value, first, last)) {
        throw Xapian::QueryParserError("'" + value + "' is not a date, and " + field_ +
                                       " is a date field; write YYYY, YYYY-MM, YYYY-MM-DD or "
                                       "YYYY-MM-DDTHH:MM[:SS][Z] (UTC), or a range " + field_ + ":A..B");
    }
    return Xapian::Query(Xapian::Query::OP_VALUE_RANGE, slot_, Xapian::sortable_serialise(first),
                         Xapian::sortable_serialise(last));
}

} // namespace cx
