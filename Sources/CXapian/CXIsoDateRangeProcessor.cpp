#include "CXIsoDateRangeProcessor.hpp"

#include <cstdint>

namespace {

bool is_leap(int64_t year) {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int64_t year, int month) {
    static const int lengths[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && is_leap(year) ? 29 : lengths[month - 1];
}

// Days between 1970-01-01 and the given date of the proleptic Gregorian calendar.
int64_t days_since_epoch(int64_t year, int month, int day) {
    int64_t days = 0;
    if (year >= 1970) {
        for (int64_t y = 1970; y < year; ++y) days += is_leap(y) ? 366 : 365;
    } else {
        for (int64_t y = year; y < 1970; ++y) days -= is_leap(y) ? 366 : 365;
    }
    for (int m = 1; m < month; ++m) days += days_in_month(year, m);
    return days + day - 1;
}

bool digits(const std::string &text, size_t start, size_t count, int &value) {
    if (start + count > text.size()) return false;
    value = 0;
    for (size_t index = start; index < start + count; ++index) {
        char c = text[index];
        if (c < '0' || c > '9') return false;
        value = value * 10 + (c - '0');
    }
    return true;
}

constexpr double seconds_per_day = 86400;

// The years ISO 8601 allows without prior agreement. Before 1583 calendars disagree: Swift's Foundation, which reads
// the dates stored in documents, switches to the Julian calendar before October 1582, while this file counts
// proleptic Gregorian days, so an older date would land on different days in documents and in queries.
constexpr int first_year = 1583;

} // namespace

namespace cx {

bool IsoDateRangeProcessor::period(const std::string &text, double &first_second, double &last_second) {
    int year = 0, month = 0, day = 0;
    if (!digits(text, 0, 4, year) || year < first_year) return false;
    if (text.size() == 4) {
        first_second = double(days_since_epoch(year, 1, 1)) * seconds_per_day;
        last_second = double(days_since_epoch(year + 1, 1, 1)) * seconds_per_day - 1;
        return true;
    }
    if (text.size() < 7 || text[4] != '-' || !digits(text, 5, 2, month) || month < 1 || month > 12) return false;
    if (text.size() == 7) {
        first_second = double(days_since_epoch(year, month, 1)) * seconds_per_day;
        last_second = first_second + double(days_in_month(year, month)) * seconds_per_day - 1;
        return true;
    }
    if (text.size() < 10 || text[7] != '-' || !digits(text, 8, 2, day) || day < 1 ||
        day > days_in_month(year, month)) {
        return false;
    }
    double midnight = double(days_since_epoch(year, month, day)) * seconds_per_day;
    if (text.size() == 10) {
        first_second = midnight;
        last_second = midnight + seconds_per_day - 1;
        return true;
    }
    // A time of day in UTC: THH:MM or THH:MM:SS, optionally followed by Z.
    std::string time = text.substr(10);
    if (!time.empty() && time.back() == 'Z') time.pop_back();
    int hour = 0, minute = 0, second = 0;
    if (time.size() < 6 || time[0] != 'T' || !digits(time, 1, 2, hour) || hour > 23 || time[3] != ':' ||
        !digits(time, 4, 2, minute) || minute > 59) {
        return false;
    }
    first_second = midnight + hour * 3600.0 + minute * 60.0;
    if (time.size() == 6) {
        last_second = first_second + 59;
        return true;
    }
    if (time.size() != 9 || time[6] != ':' || !digits(time, 7, 2, second) || second > 59) return false;
    first_second += second;
    last_second = first_second;
    return true;
}

Xapian::Query IsoDateRangeProcessor::operator()(const std::string &begin, const std::string &end) {
    double begin_first = 0, begin_last = 0, end_first = 0, end_last = 0;
    // `field:"A..B"`, quoted by the parser after a sign (CXQueryParser.cpp), is for the field's processor.
    if ((!begin.empty() && begin.front() == '"') || (!end.empty() && end.back() == '"')) {
        return Xapian::Query(Xapian::Query::OP_INVALID);
    }
    bool begin_ok = begin.empty() || period(begin, begin_first, begin_last);
    bool end_ok = end.empty() || period(end, end_first, end_last);
    if (!begin_ok || !end_ok) {
        // Without a prefix, anything shaped A..B reaches us: leave it to other range processors.
        if (str.empty()) return Xapian::Query(Xapian::Query::OP_INVALID);
        const std::string &bad = begin_ok ? end : begin;
        if (begin == end) {
            // A single date (`at:D`, rewritten `at:D..D` by the parser).
            std::string field = str.size() > 1 && str.back() == ':' ? str.substr(0, str.size() - 1) : str;
            throw Xapian::QueryParserError("'" + bad + "' is not a date, and " + field +
                                           " is a date field; write YYYY, YYYY-MM, YYYY-MM-DD or "
                                           "YYYY-MM-DDTHH:MM[:SS][Z] (UTC, a day that exists, years 1583 to 9999), "
                                           "or a range " + field + ":A..B");
        }
        throw Xapian::QueryParserError("'" + bad + "' in the range " + str + begin + ".." + end +
                                       " is not a date; write dates as YYYY, YYYY-MM, YYYY-MM-DD or "
                                       "YYYY-MM-DDTHH:MM[:SS][Z] (UTC, a day that exists, years 1583 to 9999)");
    }
    if (begin.empty() && end.empty()) {
        if (str.empty()) return Xapian::Query(Xapian::Query::OP_INVALID);
        throw Xapian::QueryParserError("the range " + str + ".. has no dates; give a start, an end or both");
    }
    if (begin.empty()) {
        return Xapian::Query(Xapian::Query::OP_VALUE_LE, slot, Xapian::sortable_serialise(end_last));
    }
    if (end.empty()) {
        return Xapian::Query(Xapian::Query::OP_VALUE_GE, slot, Xapian::sortable_serialise(begin_first));
    }
    return Xapian::Query(Xapian::Query::OP_VALUE_RANGE, slot, Xapian::sortable_serialise(begin_first),
                         Xapian::sortable_serialise(end_last));
}

} // namespace cx
