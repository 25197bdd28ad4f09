/* cudalint: <thrust/device_malloc.h>; Thrust is modelled in cudalint_thrust.h. */
#include "cudalint_thrust.h"
