// lz4.h for the Zlib module (compressed OSM files and PBF blocks). Debian package: liblz4-dev.
#ifndef CLZ4_SHIM_H
#define CLZ4_SHIM_H
#include <lz4.h>
#endif
