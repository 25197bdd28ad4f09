// gt: kernel=req_corr block=256,1,1 grid=2,1,1 note=PolyBench CORR corr_kernel (M=N=512): symmat[j1*M+j2] accumulates in the i loop (forwarded: no load), data[i*M+j1] coalesced and data[i*M+j2] with j2 = j1+1+iter per lane (misaligned); the triangular j2 loop ends at different iterations per lane
#include "gt_harness.cuh"
#define M 512
#define N 512
__global__ void req_corr(int m, int n, float *symmat, float *data) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  int i, j2;
  if (j1 < (M - 1)) {
    symmat[j1 * M + j1] = 1.0;
    for (j2 = (j1 + 1); j2 < M; j2++) {
      symmat[j1 * M + j2] = 0.0;
      for (i = 0; i < N; i++) symmat[j1 * M + j2] += data[i * M + j1] * data[i * M + j2];
      symmat[j2 * M + j1] = symmat[j1 * M + j2];
    }
  }
}
GT_HOST {
  float *symmat = gt::alloc<float>((size_t)M * N), *data = gt::alloc_f32_rand((size_t)M * N, 4);
  dim3 block(256), grid((M + 255) / 256);
  GT_LAUNCH(req_corr, grid, block, 0, M, N, symmat, data);
}
