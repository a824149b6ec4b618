#ifndef CX_KEYWORD_FIELD_PROCESSOR_HPP
#define CX_KEYWORD_FIELD_PROCESSOR_HPP

#include <xapian.h>

#include <memory>
#include <string>

namespace cx {

/// Turns `field:value` on a boolean prefix into its term (`prefix` + value), and `field:val*` into every value
/// starting with `val` (`tags:role::*`), a wildcard over the field's terms bounded as the parser bounds its own.
/// Xapian's parser expands no wildcard after a boolean prefix: it looked for the value `val*` and silently found
/// nothing.
class KeywordFieldProcessor : public Xapian::FieldProcessor {
  public:
    /// `max_expansion` is shared with the parser's own setting (0: unlimited), so a later change applies.
    KeywordFieldProcessor(const std::string &prefix, std::shared_ptr<const Xapian::termcount> max_expansion)
        : prefix_(prefix), max_expansion_(std::move(max_expansion)) {}

    Xapian::Query operator()(const std::string &value) override;

  private:
    std::string prefix_;
    std::shared_ptr<const Xapian::termcount> max_expansion_;
};

} // namespace cx

#endif
