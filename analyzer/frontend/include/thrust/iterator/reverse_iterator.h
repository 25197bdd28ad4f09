/* cudalint: <thrust/iterator/reverse_iterator.h>; see ../cudalint_thrust.h. */
#include "../cudalint_thrust.h"
