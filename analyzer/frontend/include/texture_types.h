/* cudalint: texture types live in driver_types.h here (cudaTextureObject_t, cudaTextureDesc). */
#ifndef __TEXTURE_TYPES_H__
#define __TEXTURE_TYPES_H__
#include "driver_types.h"
#endif
