#ifndef CXAPIAN_H
#define CXAPIAN_H
#ifdef __cplusplus
#define CX_NOEXCEPT noexcept
extern "C" {
#else
#define CX_NOEXCEPT
#endif
/* Placeholder: the shim is being written. */
const char *cx_version_string(void) CX_NOEXCEPT;
#ifdef __cplusplus
}
#endif
#endif
