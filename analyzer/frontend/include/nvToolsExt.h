/* cudalint: legacy location of NVTX. */
#include "nvtx3/nvToolsExt.h"
