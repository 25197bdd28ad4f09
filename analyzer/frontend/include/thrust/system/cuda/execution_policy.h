/* cudalint: <thrust/system/cuda/execution_policy.h>; see ../../cudalint_thrust.h. */
#include "../../cudalint_thrust.h"
