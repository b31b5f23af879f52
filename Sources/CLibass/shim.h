// libass's message callback takes a va_list; the shim formats it in C and filters by level.
#ifndef CAPFORGE_CLIBASS_SHIM_H
#define CAPFORGE_CLIBASS_SHIM_H
#include <ass/ass.h>
#include <stdarg.h>
#include <stdio.h>

static inline void shim_ass_quiet_cb(int level, const char *fmt, va_list va, void *data) {
    (void)level; (void)fmt; (void)va; (void)data;
}
// Without a callback libass prints every level to stderr.
static inline void shim_ass_silence(ASS_Library *lib) {
    ass_set_message_cb(lib, shim_ass_quiet_cb, NULL);
}
#endif
