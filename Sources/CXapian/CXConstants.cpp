// Xapian's numeric constants, read from its headers at build time so Swift never hard-codes them
// (their values changed between Xapian 1.2 and 1.4).
#include "CXInternal.hpp"

extern "C" {

const int cx_db_create_or_open = Xapian::DB_CREATE_OR_OPEN;
const int cx_db_create_or_overwrite = Xapian::DB_CREATE_OR_OVERWRITE;
const int cx_db_create = Xapian::DB_CREATE;
const int cx_db_open = Xapian::DB_OPEN;
const int cx_db_no_sync = Xapian::DB_NO_SYNC;
const int cx_db_full_sync = Xapian::DB_FULL_SYNC;
const int cx_db_retry_lock = Xapian::DB_RETRY_LOCK;

const int cx_op_and = Xapian::Query::OP_AND;
const int cx_op_or = Xapian::Query::OP_OR;
const int cx_op_and_not = Xapian::Query::OP_AND_NOT;
const int cx_op_xor = Xapian::Query::OP_XOR;
const int cx_op_and_maybe = Xapian::Query::OP_AND_MAYBE;
const int cx_op_filter = Xapian::Query::OP_FILTER;

const unsigned cx_qp_flag_boolean = Xapian::QueryParser::FLAG_BOOLEAN;
const unsigned cx_qp_flag_phrase = Xapian::QueryParser::FLAG_PHRASE;
const unsigned cx_qp_flag_lovehate = Xapian::QueryParser::FLAG_LOVEHATE;
const unsigned cx_qp_flag_boolean_any_case = Xapian::QueryParser::FLAG_BOOLEAN_ANY_CASE;
const unsigned cx_qp_flag_wildcard = Xapian::QueryParser::FLAG_WILDCARD;
const unsigned cx_qp_flag_pure_not = Xapian::QueryParser::FLAG_PURE_NOT;
const unsigned cx_qp_flag_partial = Xapian::QueryParser::FLAG_PARTIAL;
const unsigned cx_qp_flag_spelling_correction = Xapian::QueryParser::FLAG_SPELLING_CORRECTION;
const unsigned cx_qp_flag_synonym = Xapian::QueryParser::FLAG_SYNONYM;
const unsigned cx_qp_flag_cjk_ngram = Xapian::QueryParser::FLAG_CJK_NGRAM;
const unsigned cx_qp_flag_no_positions = Xapian::QueryParser::FLAG_NO_POSITIONS;
const unsigned cx_qp_flag_default = Xapian::QueryParser::FLAG_DEFAULT;

const int cx_stem_none = Xapian::QueryParser::STEM_NONE;
const int cx_stem_some = Xapian::QueryParser::STEM_SOME;
const int cx_stem_all = Xapian::QueryParser::STEM_ALL;
const int cx_stem_all_z = Xapian::QueryParser::STEM_ALL_Z;

const unsigned cx_snippet_background_model = Xapian::MSet::SNIPPET_BACKGROUND_MODEL;
const unsigned cx_snippet_exhaustive = Xapian::MSet::SNIPPET_EXHAUSTIVE;
const unsigned cx_snippet_empty_without_match = Xapian::MSet::SNIPPET_EMPTY_WITHOUT_MATCH;
const unsigned cx_snippet_cjk_ngram = Xapian::MSet::SNIPPET_CJK_NGRAM;

const unsigned cx_compact_standard = Xapian::Compactor::STANDARD;
const unsigned cx_compact_full = Xapian::Compactor::FULL;
const unsigned cx_compact_fuller = Xapian::Compactor::FULLER;

const uint32_t cx_bad_valueno = Xapian::BAD_VALUENO;

} // extern "C"
