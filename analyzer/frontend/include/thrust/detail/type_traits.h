/* cudalint: <thrust/detail/type_traits.h>; see ../cudalint_thrust.h. */
#include "../cudalint_thrust.h"
