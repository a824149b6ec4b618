#include "CXapian.h"
#include <xapian.h>
extern "C" const char *cx_version_string(void) noexcept { return Xapian::version_string(); }
