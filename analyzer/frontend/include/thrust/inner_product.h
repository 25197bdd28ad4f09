/* cudalint: <thrust/inner_product.h>; Thrust is modelled in cudalint_thrust.h. */
#include "cudalint_thrust.h"
