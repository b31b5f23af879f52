#ifndef CAPFORGE_CPOCKETSPHINX_SHIM_H
#define CAPFORGE_CPOCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/cmd_ln.h>
#endif
