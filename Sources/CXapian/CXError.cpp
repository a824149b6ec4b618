#include "CXInternal.hpp"

namespace {

cx_error oom_error = {CX_ERR_BAD_ALLOC, const_cast<char *>("bad_alloc"),
                      const_cast<char *>("out of memory while reporting an error"), 38, false, true};
cx_error oom_error_batch_lost = {CX_ERR_BAD_ALLOC, const_cast<char *>("bad_alloc"),
                                 const_cast<char *>("out of memory while reporting an error"), 38, true, true};

char *duplicate(const char *bytes, size_t length) noexcept {
    char *copy = static_cast<char *>(std::malloc(length + 1));
    if (copy == nullptr) return nullptr;
    if (length > 0) std::memcpy(copy, bytes, length);
    copy[length] = '\0';
    return copy;
}

cx_error *make_error(cx_error_code code, const char *type, const std::string &message, bool batch_lost) noexcept {
    cx_error *error = static_cast<cx_error *>(std::malloc(sizeof(cx_error)));
    char *type_copy = duplicate(type, std::strlen(type));
    char *message_copy = duplicate(message.data(), message.size());
    if (error == nullptr || type_copy == nullptr || message_copy == nullptr) {
        std::free(error);
        std::free(type_copy);
        std::free(message_copy);
        return batch_lost ? &oom_error_batch_lost : &oom_error;
    }
    *error = cx_error{code, type_copy, message_copy, message.size(), batch_lost, false};
    return error;
}

// Xapian 1.4 reports a table cut short (io_read_block reaching the end of the file, as after a truncated copy or
// a crash of the file system) as a plain DatabaseError, the class it also uses for write failures such as a full
// disk. The first is damage that rebuilding repairs, the second is not: the message is the only thing telling
// them apart, so it is read here, once, and the callers decide by code.
bool is_truncated_table(const Xapian::DatabaseError &error) noexcept {
    static const char prefix[] = "EOF reading block";
    try {
        return error.get_msg().compare(0, sizeof prefix - 1, prefix) == 0;
    } catch (...) {
        return false;
    }
}

// Xapian::Error has no virtual functions, so its type can only be told apart by catching: rethrow the
// exception being handled and match it, most derived classes first.
cx_error_code code_of_current_xapian_error() noexcept {
    try {
        throw;
    } catch (const Xapian::DatabaseLockError &) {
        return CX_ERR_DATABASE_LOCK;
    } catch (const Xapian::DatabaseModifiedError &) {
        return CX_ERR_DATABASE_MODIFIED;
    } catch (const Xapian::DatabaseNotFoundError &) {
        return CX_ERR_DATABASE_NOT_FOUND;
    } catch (const Xapian::DatabaseVersionError &) {
        return CX_ERR_DATABASE_VERSION;
    } catch (const Xapian::DatabaseOpeningError &) {
        return CX_ERR_DATABASE_OPENING;
    } catch (const Xapian::DatabaseCorruptError &) {
        return CX_ERR_DATABASE_CORRUPT;
    } catch (const Xapian::DatabaseCreateError &) {
        return CX_ERR_DATABASE_CREATE;
    } catch (const Xapian::DatabaseClosedError &) {
        return CX_ERR_DATABASE_CLOSED;
    } catch (const Xapian::DatabaseError &error) {
        return is_truncated_table(error) ? CX_ERR_DATABASE_CORRUPT : CX_ERR_DATABASE;
    } catch (const Xapian::QueryParserError &) {
        return CX_ERR_QUERY_PARSER;
    } catch (const Xapian::WildcardError &) {
        return CX_ERR_WILDCARD;
    } catch (const Xapian::InvalidArgumentError &) {
        return CX_ERR_INVALID_ARGUMENT;
    } catch (const Xapian::InvalidOperationError &) {
        return CX_ERR_INVALID_OPERATION;
    } catch (const Xapian::RangeError &) {
        return CX_ERR_RANGE;
    } catch (const Xapian::DocNotFoundError &) {
        return CX_ERR_DOC_NOT_FOUND;
    } catch (const Xapian::FeatureUnavailableError &) {
        return CX_ERR_FEATURE_UNAVAILABLE;
    } catch (const Xapian::UnimplementedError &) {
        return CX_ERR_UNIMPLEMENTED;
    } catch (const Xapian::NetworkTimeoutError &) {
        return CX_ERR_NETWORK_TIMEOUT;
    } catch (const Xapian::NetworkError &) {
        return CX_ERR_NETWORK;
    } catch (const Xapian::SerialisationError &) {
        return CX_ERR_SERIALISATION;
    } catch (...) {
        return CX_ERR_XAPIAN_OTHER;
    }
}

void store(cx_error **err, cx_error *error) noexcept {
    if (err != nullptr) {
        *err = error;
    } else {
        cx_error_free(error);
    }
}

} // namespace

namespace cx {

void invalid_argument(const std::string &message) {
    throw misuse{CX_ERR_INVALID_ARGUMENT, "InvalidArgumentError", message};
}

void out_of_range(const std::string &message) {
    throw misuse{CX_ERR_RANGE, "RangeError", message};
}

void report_current_exception(cx_error **err, bool batch_lost) noexcept {
    // Building the message may itself run out of memory: fall back to the preallocated error.
    try {
        throw;
    } catch (const misuse &error) {
        store(err, make_error(error.code, error.type, error.message, false));
    } catch (const Xapian::Error &error) {
        std::string message;
        try {
            message = error.get_msg();
            // Remote databases name their server here ("remote:tcp(HOST:PORT)"): without it, an error about one
            // shard of several would not say which.
            const std::string &context = error.get_context();
            if (!context.empty()) message += " (context: " + context + ")";
            // get_error_string() is NULL when Xapian has no system error text.
            if (const char *system = error.get_error_string()) {
                if (*system != '\0') message += std::string(" (") + system + ")";
            }
        } catch (...) {
            store(err, batch_lost ? &oom_error_batch_lost : &oom_error);
            return;
        }
        store(err, make_error(code_of_current_xapian_error(), error.get_type(), message, batch_lost));
    } catch (const std::bad_alloc &) {
        store(err, batch_lost ? &oom_error_batch_lost : &oom_error);
    } catch (const std::exception &error) {
        const char *what = error.what();
        store(err, make_error(CX_ERR_STD_EXCEPTION, "std::exception", what != nullptr ? what : "", batch_lost));
    } catch (...) {
        store(err, make_error(CX_ERR_UNKNOWN, "unknown", "an exception of unknown type was thrown", batch_lost));
    }
}

} // namespace cx

extern "C" {

cx_error_code cx_error_get_code(const cx_error *err) noexcept {
    return err != nullptr ? err->code : CX_ERR_UNKNOWN;
}

const char *cx_error_get_type(const cx_error *err) noexcept {
    return err != nullptr ? err->type : "";
}

const char *cx_error_get_message(const cx_error *err, size_t *length) noexcept {
    if (err == nullptr) {
        if (length != nullptr) *length = 0;
        return "";
    }
    if (length != nullptr) *length = err->message_len;
    return err->message;
}

bool cx_error_batch_lost(const cx_error *err) noexcept {
    return err != nullptr && err->batch_lost;
}

void cx_error_free(cx_error *err) noexcept {
    if (err == nullptr || err->is_static) return;
    std::free(err->type);
    std::free(err->message);
    std::free(err);
}

void cx_free(void *buffer) noexcept {
    std::free(buffer);
}

const char *cx_version_string(void) noexcept {
    return Xapian::version_string();
}

} // extern "C"
