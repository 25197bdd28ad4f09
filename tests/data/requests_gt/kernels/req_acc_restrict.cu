// gt: kernel=req_acc_restrict block=256,1,1 grid=16,1,1 note=same with __restrict__: tmp[i] loaded once and stored once (sunk after the loop)
#include "gt_harness.cuh"
#define NX 4096
#define NY 1024
__global__ void req_acc_restrict(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < NY; j++) tmp[i] += A[i * NY + j] * x[j];
}
GT_HOST {
  float *A = gt::alloc_f32_rand((size_t)NX * NY, 1), *x = gt::alloc_f32_rand(NY, 2), *tmp = gt::alloc<float>(NX);
  dim3 block(256), grid(NX / 256);
  GT_LAUNCH(req_acc_restrict, grid, block, 0, A, x, tmp);
}
