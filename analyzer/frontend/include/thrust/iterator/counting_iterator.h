/* cudalint: <thrust/iterator/counting_iterator.h>; see ../cudalint_thrust.h. */
#include "../cudalint_thrust.h"
