/* cudalint: LibTorch stand-in; everything is declared in torch/cudalint_torch.h. */
#include "../../torch/cudalint_torch.h"
