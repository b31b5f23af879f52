// The part of ICU's C API that Capforge calls (word segmentation), declared here with plain C
// types: ICU's own headers clash with the ICU module inside the Swift toolchain's Foundation,
// and ICU's C names carry the library's major version (ubrk_open_72), so the functions are
// looked up by name when libicuuc is opened (cicu_bind), whatever version Debian ships.
#ifndef CAPFORGE_CICU_H
#define CAPFORGE_CICU_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

// UBRK_WORD in ICU's UBreakIteratorType, and UBRK_DONE.
static const int32_t CICU_UBRK_WORD = 1;
static const int32_t CICU_UBRK_DONE = -1;

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
struct cicu_functions {
    // Returns a UBreakIterator; *status > 0 is an error (UErrorCode).
    void * (* _Nonnull ubrk_open)(int32_t type, const char * locale, const uint16_t * text, int32_t length, int32_t * status);
    int32_t (* _Nonnull ubrk_first)(void * iterator);
    int32_t (* _Nonnull ubrk_next)(void * iterator);
    void (* _Nonnull ubrk_close)(void * iterator);
    const char * (* _Nonnull u_errorName)(int32_t code);
};
#pragma clang diagnostic pop

// Fills `functions` from libicuuc opened with dlopen, each name with `suffix` ("_72") appended;
// returns the first name the library lacks, or NULL when it has them all. `missing` holds it.
static inline const char * cicu_bind(void * library, const char * suffix, struct cicu_functions * functions, char * missing, int size) {
#define CICU_BIND(name) snprintf(missing, size, "%s%s", #name, suffix); \
    if (!(functions->name = (__typeof__(functions->name))dlsym(library, missing))) return missing
    CICU_BIND(ubrk_open);
    CICU_BIND(ubrk_first);
    CICU_BIND(ubrk_next);
    CICU_BIND(ubrk_close);
    CICU_BIND(u_errorName);
#undef CICU_BIND
    return NULL;
}

#endif
