// gt: kernel=req_store_between block=256,1,1 grid=4096,1,1 note=b[i] = a[i+1] + 1; c[i] = a[i+1] * 2 + s[32 i]: the store to b may alias a, so a[i+1] is loaded twice (5 sectors each); s once (32)
#include "gt_harness.cuh"
#define N (1 << 20)
__global__ void req_store_between(const float *a, const float *s, float *b, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i + 1] + 1.0f;
  c[i] = a[i + 1] * 2.0f + s[32 * (i % 1024)];
}
GT_HOST {
  float *a = gt::alloc_f32_rand(N + 64, 1), *s = gt::alloc_f32_rand(32 * 1024 + 64, 3);
  float *b = gt::alloc<float>(N), *c = gt::alloc<float>(N);
  dim3 block(256), grid(N / 256);
  GT_LAUNCH(req_store_between, grid, block, 0, a, s, b, c);
}
