// zlib for the Roads module (OSM PBF blobs). Debian package: zlib1g-dev.
#ifndef ROADS_CZLIB_SHIM_H
#define ROADS_CZLIB_SHIM_H
#include <zlib.h>
#endif
