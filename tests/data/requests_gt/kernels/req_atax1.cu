// gt: kernel=req_atax1 block=256,1,1 grid=16,1,1 expect_ld_sectors_per_req=16.5 expect_st_sectors_per_req=4 note=PolyBench ATAX kernel 1: tmp[i] accumulates in the j loop; nvcc forwards the stored tmp[i] (no LDG of tmp), so per iteration only A (32 sectors, row per lane) and x (1, broadcast) are loaded: (32+1)/2
#include "gt_harness.cuh"
#define NX 4096
#define NY 4096
__global__ void req_atax1(int nx, int ny, float *A, float *x, float *tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) {
    tmp[i] = 0;
    for (int j = 0; j < ny; j++) tmp[i] += A[i * NY + j] * x[j];
  }
}
GT_HOST {
  float *A = gt::alloc_f32_rand((size_t)NX * NY, 1), *x = gt::alloc_f32_rand(NY, 2), *tmp = gt::alloc<float>(NX);
  dim3 block(256), grid((NX + 255) / 256);
  GT_LAUNCH(req_atax1, grid, block, 0, NX, NY, A, x, tmp);
}
