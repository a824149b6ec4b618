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
        std::string query_text = cx::bytes(text, text_len, "query text");
        // Spelling correction and synonyms read the database while parsing.
        Xapian::Query query = cx::read_retrying(parser->db, *parser->db_needs_reopen, cx::default_max_retries,
                                                [&] { return parser->parser.parse_query(query_text, flags); });
        return new cx_query{query};
    });
}

cx_query *cx_query_parser_parse_checked(cx_query_parser *parser, const char *text, size_t text_len, unsigned flags,
                                        bool *read_as_words, cx_error **err) noexcept {
    if (read_as_words != nullptr) *read_as_words = false;
    return cx::guard(err, static_cast<cx_query *>(nullptr), [&] {
        cx::require(parser, "query parser");
        cx::require(read_as_words, "read-as-words output");
        std::string query_text = cx::bytes(text, text_len, "query text");
        auto parse = [&](unsigned with) {
            return cx::read_retrying(parser->db, *parser->db_needs_reopen, cx::default_max_retries,
                                     [&] { return parser->parser.parse_query(query_text, with); });
        };
        // Xapian 1.4 says nowhere that it fell back: on a syntax error its grammar has no message for, it parses
        // the text again as plain words and returns that reading, which is then the plain reading itself. The plain
        // reading comes first, so that the spelling correction left for the caller is the requested one's; text
        // that plain words cannot read either (a signed range) was not read as them.
        std::string plain;
        bool has_plain = false;
        try {
            plain = parse(Xapian::QueryParser::FLAG_CJK_NGRAM).serialise();
            has_plain = true;
        } catch (const Xapian::Error &) {
        }
        Xapian::Query query = parse(flags);
        if (has_plain) {
            try {
                *read_as_words = query.serialise() == plain;
            } catch (const Xapian::UnimplementedError &) {
                // A query that cannot be serialised holds more than plain words.
            }
        }
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
