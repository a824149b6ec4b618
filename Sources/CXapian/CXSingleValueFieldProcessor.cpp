#include "CXSingleValueFieldProcessor.hpp"
#include "CXIsoDateRangeProcessor.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace cx {

namespace {

// The whole of `text` as a finite number.
bool number(const std::string &text, double &value) {
    if (text.empty()) return false;
    const char *start = text.c_str();
    char *end = nullptr;
    errno = 0;
    value = std::strtod(start, &end);
    return end == start + text.size() && errno == 0 && std::isfinite(value);
}

} // namespace

Xapian::Query SingleValueFieldProcessor::operator()(const std::string &value) {
    const size_t dots = value.find("..");
    if (dots != std::string::npos) return range(value.substr(0, dots), value.substr(dots + 2));
    double first = 0, last = 0;
    if (kind_ == Kind::number) {
        if (!number(value, first)) {
            throw Xapian::QueryParserError("'" + value + "' is not a number, and " + field_ +
                                           " is a number field; write one number, " + field_ + ":42 or " + field_ +
                                           ":-3.5, or a range, " + field_ + ":10..20");
        }
        last = first;
    } else if (!IsoDateRangeProcessor::period(value, first, last)) {
        throw Xapian::QueryParserError("'" + value + "' is not a date, and " + field_ +
                                       " is a date field; write YYYY, YYYY-MM, YYYY-MM-DD or "
                                       "YYYY-MM-DDTHH:MM[:SS][Z] (UTC, a day that exists, years 1583 to 9999), "
                                       "or a range " + field_ + ":A..B");
    }
    return Xapian::Query(Xapian::Query::OP_VALUE_RANGE, slot_, Xapian::sortable_serialise(first),
                         Xapian::sortable_serialise(last));
}

Xapian::Query SingleValueFieldProcessor::range(const std::string &low, const std::string &high) {
    if (kind_ == Kind::date) {
        IsoDateRangeProcessor dates(slot_, field_ + ":");
        return dates(low, high);
    }
    const std::string written = field_ + ":" + low + ".." + high;
    if (low.empty() && high.empty()) {
        throw Xapian::QueryParserError("the range " + written + " has no numbers; give a start, an end or both");
    }
    double first = 0, last = 0;
    for (const auto &[bound, out] : {std::pair<const std::string &, double &>{low, first}, {high, last}}) {
        if (!bound.empty() && !number(bound, out)) {
            throw Xapian::QueryParserError("'" + bound + "' in the range " + written + " is not a number, and " +
                                           field_ + " is a number field; write numbers, e.g. " + field_ +
                                           ":10..20 (either side may be empty)");
        }
    }
    if (low.empty()) return Xapian::Query(Xapian::Query::OP_VALUE_LE, slot_, Xapian::sortable_serialise(last));
    if (high.empty()) return Xapian::Query(Xapian::Query::OP_VALUE_GE, slot_, Xapian::sortable_serialise(first));
    return Xapian::Query(Xapian::Query::OP_VALUE_RANGE, slot_, Xapian::sortable_serialise(first),
                         Xapian::sortable_serialise(last));
}

} // namespace cx
