// bzlib.h for the Zlib module (compressed OSM files and PBF blocks). Debian package: libbz2-dev.
#ifndef CBZIP2_SHIM_H
#define CBZIP2_SHIM_H
#include <bzlib.h>
#endif
