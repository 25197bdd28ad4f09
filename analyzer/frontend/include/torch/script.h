/* cudalint: LibTorch stand-in; everything is declared in torch/cudalint_torch.h. */
#include "cudalint_torch.h"
