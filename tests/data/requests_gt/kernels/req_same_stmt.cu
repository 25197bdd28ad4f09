// gt: kernel=req_same_stmt block=256,1,1 grid=4096,1,1 note=a[i+1] read three times in one statement: one LDG (5 sectors, misaligned), one store
#include "gt_harness.cuh"
#define N (1 << 20)
__global__ void req_same_stmt(const float *a, const float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i + 1] * a[i + 1] + a[i + 1] + b[32 * (i % 1024)];
}
GT_HOST {
  float *a = gt::alloc_f32_rand(N + 64, 1), *b = gt::alloc_f32_rand(32 * 1024 + 64, 3), *out = gt::alloc<float>(N);
  dim3 block(256), grid(N / 256);
  GT_LAUNCH(req_same_stmt, grid, block, 0, a, b, out);
}
