#ifndef CX_SINGLE_VALUE_FIELD_PROCESSOR_HPP
#define CX_SINGLE_VALUE_FIELD_PROCESSOR_HPP

#include <xapian.h>

#include <string>

namespace cx {

/// Turns `field:V` on a number or date field into the documents whose value in `slot` is V: for numbers exactly V
/// (`price:-3`, `price:"42"`), for dates every second of the period V names (`at:2024` is the whole year). It is a
/// boolean prefix, so the parser hands it the whole value (signs, hyphens, colons, quoted text) and the value
/// filters the query, as a range does. Ranges `field:A..B` go to the range processors first, but one written with
/// `+` or `-` before it reaches no range processor in Xapian 1.4: the query front end quotes it (`-price:"1..20"`) and it
/// comes here, as `A..B`. A value that is not a number (or date) is a QueryParserError naming the field, rather
/// than a search that silently finds nothing.
class SingleValueFieldProcessor : public Xapian::FieldProcessor {
  public:
    enum class Kind { number, date };

    SingleValueFieldProcessor(Xapian::valueno slot, const std::string &field, Kind kind)
        : slot_(slot), field_(field), kind_(kind) {}

    Xapian::Query operator()(const std::string &value) override;

  private:
    /// `A..B`, either side possibly empty, as the range processors read it.
    Xapian::Query range(const std::string &low, const std::string &high);

    Xapian::valueno slot_;
    std::string field_;
    Kind kind_;
};

} // namespace cx

#endif
