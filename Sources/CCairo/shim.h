// Cairo for the TrafficMap module (rendering map views and raster tiles).
// Debian package: libcairo2-dev.
#ifndef TRAFFICMAP_CCAIRO_SHIM_H
#define TRAFFICMAP_CCAIRO_SHIM_H
#include <cairo/cairo.h>
#endif
