#include <gpiod.h>

// libgpiod has no version macro. The 1.x headers define the line-bulk API's
// GPIOD_LINE_BULK_MAX_LINES, which 2.x removed with the rest of the 1.x API. Exactly one of the
// marker types below exists, so the Swift side can check that Package.swift chose the API these
// headers have (see GPIOLineRequest.swift).
#ifdef GPIOD_LINE_BULK_MAX_LINES
typedef int puck_gpiod_headers_are_v1;
#else
typedef int puck_gpiod_headers_are_v2;
#endif
