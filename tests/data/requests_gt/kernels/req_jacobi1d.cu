// gt: kernel=req_jacobi1d block=256,1,1 grid=16,1,1 note=PolyBench JACOBI1D kernel 1: A[i-1], A[i], A[i+1] under (i > 1 && i < N-1): 5, 4, 5 sectors
#include "gt_harness.cuh"
#define N 4096
__global__ void req_jacobi1d(int n, float *A, float *B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if ((i > 1) && (i < (N - 1))) B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
}
GT_HOST {
  float *A = gt::alloc_f32_rand(N, 1), *B = gt::alloc<float>(N);
  dim3 block(256), grid(N / 256);
  GT_LAUNCH(req_jacobi1d, grid, block, 0, N, A, B);
}
