// zstd.h for the Zlib module (compressed OSM files and PBF blocks). Debian package: libzstd-dev.
#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H
#include <zstd.h>
#endif
