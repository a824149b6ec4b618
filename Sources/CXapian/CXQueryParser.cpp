#include "CXInternal.hpp"
#include "CXIsoDateRangeProcessor.hpp"
#include "CXKeywordFieldProcessor.hpp"
#include "CXSingleValueFieldProcessor.hpp"

namespace {

// `field:` prefixes also take a single value (`year:2024`), through a field processor; ranges still go to the range
// processors, which the parser consults first. A boolean prefix: the parser hands over the whole value (a
// non-boolean one drops a leading `-`, splits a date at its hyphens and gives a quoted value no query at all).
void add_single_value(cx_query_parser &parser, Xapian::valueno slot, const std::string &prefix,
                      cx::SingleValueFieldProcessor::Kind kind) {
    if (prefix.size() < 2 || prefix.back() != ':') return;
    std::string field = prefix.substr(0, prefix.size() - 1);
    parser.parser.add_boolean_prefix(field, (new cx::SingleValueFieldProcessor(slot, field, kind))->release());
    parser.value_prefixes.push_back(prefix);
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Quotes the bounds of each `+field:A..B` or `-field:A..B` (a number or date field's prefix, outside quotes): Xapian
// 1.4's parser gives a range after a sign to no range processor ("Unknown range operation"), while `-field:"A..B"`
// reaches the field's processor, which reads the range the same way.
std::string with_signed_ranges_quoted(const std::string &text, const std::vector<std::string> &prefixes) {
    if (prefixes.empty() || text.find("..") == std::string::npos) return text;
    std::string result;
    result.reserve(text.size() + 8);
    bool quoted = false;
    size_t position = 0;
    while (position < text.size()) {
        const char c = text[position];
        const bool signed_word = !quoted && (c == '+' || c == '-') &&
                                 (position == 0 || is_space(text[position - 1]) || text[position - 1] == '(');
        const std::string *matched = nullptr;
        if (signed_word) {
            for (const auto &prefix : prefixes) {
                if (text.compare(position + 1, prefix.size(), prefix) == 0) matched = &prefix;
            }
        }
        if (matched == nullptr) {
            if (c == '"') quoted = !quoted;
            result += c;
            ++position;
            continue;
        }
        const size_t start = position + 1 + matched->size();
        size_t end = start;
        while (end < text.size() && !is_space(text[end]) && text[end] != ')') ++end;
        const std::string value = text.substr(start, end - start);
        result += c;
        result += *matched;
        if (value.find("..") != std::string::npos && value.find('"') == std::string::npos) {
            result += '"';
            result += value;
            result += '"';
        } else {
            result += value;
        }
        position = end;
    }
    return result;
}

} // namespace

extern "C" {

cx_query_parser *cx_query_parser_new(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query_parser *>(nullptr), [&] {
        return new cx_query_parser{Xapian::QueryParser()};
    });
}

void cx_query_parser_free(cx_query_parser *parser) noexcept {
    try {
        delete parser;
    } catch (...) {
    }
}

bool cx_query_parser_set_stemmer(cx_query_parser *parser, const char *language, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser")->parser.set_stemmer(cx::stemmer(language));
        return true;
    });
}

bool cx_query_parser_set_stopper(cx_query_parser *parser, const cx_stopper *stopper, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser")->parser.set_stopper(cx::make_stopper(stopper));
        return true;
    });
}

bool cx_query_parser_set_default_op(cx_query_parser *parser, int op, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser");
        if (op != Xapian::Query::OP_AND && op != Xapian::Query::OP_OR) {
            cx::invalid_argument("default operator " + std::to_string(op) + " is not supported; use cx_op_and or cx_op_or");
        }
        parser->parser.set_default_op(static_cast<Xapian::Query::op>(op));
        return true;
    });
}

bool cx_query_parser_set_database(cx_query_parser *parser, cx_database *db, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser")->parser.set_database(cx::require_open(db)->db);
        parser->db = db->db;
        parser->db_needs_reopen = db->needs_reopen;
        return true;
    });
}

bool cx_query_parser_add_prefix(cx_query_parser *parser, const char *field, size_t field_len,
                                const char *prefix, size_t prefix_len, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser");
        parser->parser.add_prefix(cx::bytes(field, field_len, "field"), cx::bytes(prefix, prefix_len, "prefix"));
        return true;
    });
}

bool cx_query_parser_add_boolean_prefix(cx_query_parser *parser, const char *field, size_t field_len,
                                        const char *prefix, size_t prefix_len, bool exclusive,
                                        cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser");
        std::string name = cx::bytes(field, field_len, "field");
        if (name.empty()) cx::invalid_argument("boolean field name is empty; give the name users type before ':'");
        auto *keywords = new cx::KeywordFieldProcessor(cx::bytes(prefix, prefix_len, "prefix"), parser->max_expansion);
        parser->parser.add_boolean_prefix(name, keywords->release(), exclusive);
        return true;
    });
}

bool cx_query_parser_add_number_range(cx_query_parser *parser, uint32_t slot, const char *prefix,
                                      size_t prefix_len, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser");
        if (slot == Xapian::BAD_VALUENO) cx::invalid_argument("value slot cx_bad_valueno holds no values");
        std::string marker = cx::bytes(prefix, prefix_len, "prefix");
        // release() hands ownership to the parser, which deletes the processor with its last reference.
        parser->parser.add_rangeprocessor(
            (new Xapian::NumberRangeProcessor(slot, marker, Xapian::RP_REPEATED))->release());
        add_single_value(*parser, slot, marker, cx::SingleValueFieldProcessor::Kind::number);
        return true;
    });
}

bool cx_query_parser_add_date_range(cx_query_parser *parser, uint32_t slot, const char *prefix,
                                    size_t prefix_len, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser");
        if (slot == Xapian::BAD_VALUENO) cx::invalid_argument("value slot cx_bad_valueno holds no values");
        std::string marker = cx::bytes(prefix, prefix_len, "prefix");
        parser->parser.add_rangeprocessor((new cx::IsoDateRangeProcessor(slot, marker))->release());
        add_single_value(*parser, slot, marker, cx::SingleValueFieldProcessor::Kind::date);
        return true;
    });
}

bool cx_query_parser_set_stemming_strategy(cx_query_parser *parser, int strategy, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser");
        switch (strategy) {
        case Xapian::QueryParser::STEM_NONE:
        case Xapian::QueryParser::STEM_SOME:
        case Xapian::QueryParser::STEM_ALL:
        case Xapian::QueryParser::STEM_ALL_Z:
            break;
        default:
            cx::invalid_argument("stemming strategy " + std::to_string(strategy) +
                                 " is not supported; use cx_stem_none, cx_stem_some, cx_stem_all or cx_stem_all_z");
        }
        parser->parser.set_stemming_strategy(static_cast<Xapian::QueryParser::stem_strategy>(strategy));
        return true;
    });
}

bool cx_query_parser_set_max_wildcard_expansion(cx_query_parser *parser, uint32_t limit, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser")
            ->parser.set_max_expansion(limit, Xapian::Query::WILDCARD_LIMIT_ERROR, Xapian::QueryParser::FLAG_WILDCARD);
        *parser->max_expansion = limit;
        return true;
    });
}

bool cx_query_parser_set_max_partial_expansion(cx_query_parser *parser, uint32_t limit, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(parser, "query parser");
        if (limit < 1 || limit > 10000) {
            cx::invalid_argument("partial expansion limit " + std::to_string(limit) + " is out of range; use 1 to 10000");
        }
        // The most frequent completions, combined as one synonym of the word so that many rare ones do not outweigh
        // the word as typed (the parser ORs it in).
        parser->parser.set_max_expansion(limit, Xapian::Query::WILDCARD_LIMIT_MOST_FREQUENT,
                                         Xapian::QueryParser::FLAG_PARTIAL);
        return true;
    });
}

cx_query *cx_query_parser_parse(cx_query_parser *parser, const char *text, size_t text_len, unsigned flags,
                                cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] {
        cx::require(parser, "query parser");
        std::string query_text =
            with_signed_ranges_quoted(cx::bytes(text, text_len, "query text"), parser->value_prefixes);
        // Spelling correction and synonyms read the database while parsing.
        Xapian::Query query = cx::read_retrying(parser->db, *parser->db_needs_reopen, cx::default_max_retries,
                                                [&] { return parser->parser.parse_query(query_text, flags); });
        return new cx_query{query};
    });
}

bool cx_query_parser_corrected_query(const cx_query_parser *parser, char **out, size_t *out_len,
                                     cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::copy_out(cx::require(parser, "query parser")->parser.get_corrected_query_string(), out, out_len);
        return true;
    });
}

} // extern "C"
