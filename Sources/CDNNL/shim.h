#ifndef CAPFORGE_CDNNL_SHIM_H
#define CAPFORGE_CDNNL_SHIM_H
#include <oneapi/dnnl/dnnl.h>

// Debian's oneDNN runs on GNU OpenMP (DNNL_CPU_RUNTIME is OMP), which has no thread count of
// its own in the oneDNN API; libgomp's two standard calls set and read it. Declared here
// because omp.h lives in gcc's private include folder, which Swift's clang does not search.
void omp_set_num_threads(int count);
int omp_get_max_threads(void);
#endif
