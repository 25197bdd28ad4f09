/* cudalint: <thrust/iterator/discard_iterator.h>; see ../cudalint_thrust.h. */
#include "../cudalint_thrust.h"
