// The PostgreSQL client library for the TrafficPostgres module (Debian: libpq-dev).
//
// Only TrafficPostgres imports this module. Debian installs libpq-fe.h under
// /usr/include/postgresql, outside the default include path, so it is named in full here.
#ifndef TRAFFIC_CLIBPQ_SHIM_H
#define TRAFFIC_CLIBPQ_SHIM_H

#include "/usr/include/postgresql/libpq-fe.h"
#include <poll.h>

#endif
