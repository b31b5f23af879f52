#ifndef CAPFORGE_CFONTCONFIG_SHIM_H
#define CAPFORGE_CFONTCONFIG_SHIM_H
#include <fontconfig/fontconfig.h>
#endif
