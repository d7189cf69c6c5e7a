// jemalloc, the memory allocator of the `traffic` executable (linked, it replaces the C
// library's malloc for the whole process). Debian package: libjemalloc-dev.
#ifndef TRAFFIC_CJEMALLOC_SHIM_H
#define TRAFFIC_CJEMALLOC_SHIM_H
#include <jemalloc/jemalloc.h>
#endif
