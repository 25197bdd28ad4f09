/* cudalint: surface types live in driver_types.h here (cudaSurfaceObject_t). */
#ifndef __SURFACE_TYPES_H__
#define __SURFACE_TYPES_H__
#include "driver_types.h"
#endif
