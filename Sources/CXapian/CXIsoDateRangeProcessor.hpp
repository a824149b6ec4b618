#ifndef CX_ISO_DATE_RANGE_PROCESSOR_HPP
#define CX_ISO_DATE_RANGE_PROCESSOR_HPP

#include <xapian.h>

#include <string>

namespace cx {

/// Turns `<prefix>A..B` with UTC dates YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z] into a range
/// over Unix seconds stored with
/// sortable_serialise. Xapian's own DateRangeProcessor compares YYYYMMDD strings, which does not match how
/// Spotlite stores dates.
class IsoDateRangeProcessor : public Xapian::RangeProcessor {
  public:
    IsoDateRangeProcessor(Xapian::valueno slot, const std::string &prefix)
        : Xapian::RangeProcessor(slot, prefix, Xapian::RP_REPEATED) {}

    Xapian::Query operator()(const std::string &begin, const std::string &end) override;

    /// First and last second (Unix time, UTC) of the period a date names; false when `text` is no such date: the
    /// day must exist, hours 00-23, minutes and seconds 00-59, years 1583-9999 (the rule of the Swift side's
    /// ISODateParser, which reads the dates stored in documents).
    static bool period(const std::string &text, double &first_second, double &last_second);
};

} // namespace cx

#endif
