#include "CXInternal.hpp"

extern "C" {

cx_document *cx_document_new(cx_error **err) noexcept {
    return cx::guard(err, static_cast<cx_document *>(nullptr), [&] { return new cx_document{Xapian::Document()}; });
}

void cx_document_free(cx_document *document) noexcept {
    try {
        delete document;
    } catch (...) {
    }
}

bool cx_document_set_data(cx_document *document, const char *data, size_t data_len, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(document, "document")->doc.set_data(cx::bytes(data, data_len, "data"));
        return true;
    });
}

bool cx_document_get_data(const cx_document *document, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::copy_out(cx::require(document, "document")->doc.get_data(), out, out_len);
        return true;
    });
}

bool cx_document_add_boolean_term(cx_document *document, const char *term, size_t term_len, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(document, "document");
        std::string name = cx::bytes(term, term_len, "term");
        if (name.empty()) cx::invalid_argument("term is empty; boolean terms need at least one byte");
        document->doc.add_boolean_term(name);
        return true;
    });
}

bool cx_document_add_term(cx_document *document, const char *term, size_t term_len, uint32_t wdf_increment,
                          cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(document, "document");
        std::string name = cx::bytes(term, term_len, "term");
        if (name.empty()) cx::invalid_argument("term is empty; terms need at least one byte");
        document->doc.add_term(name, wdf_increment);
        return true;
    });
}

bool cx_document_set_value(cx_document *document, uint32_t slot, const char *value, size_t value_len,
                           cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(document, "document");
        if (slot == Xapian::BAD_VALUENO) cx::invalid_argument("value slot cx_bad_valueno cannot hold a value");
        document->doc.add_value(slot, cx::bytes(value, value_len, "value"));
        return true;
    });
}

bool cx_document_set_value_number(cx_document *document, uint32_t slot, double number, cx_error **err) noexcept {
    return cx::guard(err, false, [&] {
        cx::require(document, "document");
        if (slot == Xapian::BAD_VALUENO) cx::invalid_argument("value slot cx_bad_valueno cannot hold a value");
        document->doc.add_value(slot, Xapian::sortable_serialise(number));
        return true;
    });
}

bool cx_document_get_value(const cx_document *document, uint32_t slot, char **out, size_t *out_len,
                           cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::copy_out(cx::require(document, "document")->doc.get_value(slot), out, out_len);
        return true;
    });
}

uint32_t cx_document_term_count(const cx_document *document, cx_error **err) noexcept {
    return cx::guard(err, uint32_t(0), [&] { return cx::require(document, "document")->doc.termlist_count(); });
}

bool cx_document_terms(const cx_document *document, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        const Xapian::Document &doc = cx::require(document, "document")->doc;
        std::string encoded;
        auto append = [&encoded](uint32_t number) {
            for (int byte = 0; byte < 4; ++byte) encoded.push_back(char(number >> (8 * byte)));
        };
        for (auto term = doc.termlist_begin(); term != doc.termlist_end(); ++term) {
            const std::string name = *term;
            append(uint32_t(name.size()));
            encoded += name;
            append(term.get_wdf());
            append(term.positionlist_count());
            for (auto position = term.positionlist_begin(); position != term.positionlist_end(); ++position) {
                append(*position);
            }
        }
        cx::copy_out(encoded, out, out_len);
        return true;
    });
}

bool cx_sortable_serialise(double value, char **out, size_t *out_len, cx_error **err) noexcept {
    cx::reset_out(out, out_len);
    return cx::guard(err, false, [&] {
        cx::copy_out(Xapian::sortable_serialise(value), out, out_len);
        return true;
    });
}

double cx_sortable_unserialise(const char *bytes, size_t length, cx_error **err) noexcept {
    return cx::guard(err, 0.0, [&] { return Xapian::sortable_unserialise(cx::bytes(bytes, length, "value")); });
}

} // extern "C"
