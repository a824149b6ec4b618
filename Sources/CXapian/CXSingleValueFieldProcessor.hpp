#ifndef CX_SINGLE_VALUE_FIELD_PROCESSOR_HPP
#define CX_SINGLE_VALUE_FIELD_PROCESSOR_HPP

#include <xapian.h>

#include <string>

namespace cx {

/// Turns `field:V` (one value, no `..`) on a number or date field into the documents whose value in `slot` is V:
/// for numbers exactly V, for dates every second of the period V names (`at:2024` is the whole year). Ranges
/// `field:A..B` never reach it: the query parser gives them to the range processors first. A value that is not a
/// number (or date) is a QueryParserError naming the field, rather than a search that silently finds nothing.
class SingleValueFieldProcessor : public Xapian::FieldProcessor {
  public:
    enum class Kind { number, date };

    SingleValueFieldProcessor(Xapian::valueno slot, const std::string &field, Kind kind)
        : slot_(slot), field_(field), kind_(kind) {}

    Xapian::Query operator()(const std::string &value) override;

  private:
    Xapian::valueno slot_;
    std::string field_;
    Kind kind_;
};

} // namespace cx

#endif
