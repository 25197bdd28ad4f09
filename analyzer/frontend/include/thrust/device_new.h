/* cudalint: <thrust/device_new.h>; Thrust is modelled in cudalint_thrust.h. */
#include "cudalint_thrust.h"
