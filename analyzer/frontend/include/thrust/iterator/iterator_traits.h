/* cudalint: <thrust/iterator/iterator_traits.h>; see ../cudalint_thrust.h. */
#include "../cudalint_thrust.h"
