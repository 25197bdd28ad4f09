// gt: kernel=req_hoist block=256,1,1 grid=64,1,1 note=a[32 i] does not change in the k loop and nothing is stored there: loaded once before it (32 sectors once), b[k] every iteration (1)
#include "gt_harness.cuh"
#define N 16384
#define K 256
__global__ void req_hoist(const float *a, const float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < K; k++) s += a[32 * i] * b[k];
  out[i] = s;
}
GT_HOST {
  float *a = gt::alloc_f32_rand((size_t)32 * N + 64, 1), *b = gt::alloc_f32_rand(K, 2), *out = gt::alloc<float>(N);
  dim3 block(256), grid(N / 256);
  GT_LAUNCH(req_hoist, grid, block, 0, a, b, out);
}
