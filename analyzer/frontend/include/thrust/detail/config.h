/* cudalint: <thrust/detail/config.h>; see ../cudalint_thrust.h. */
#include "../cudalint_thrust.h"
