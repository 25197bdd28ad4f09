// gt: kernel=req_stencil_halo block=256,1,1 grid=4096,1,1 note=HeCBench stencil_1d (RADIUS 7): in[g] by every warp (4 sectors), the halo loads only by lanes 0-6 of warp 0 (1 sector each): (8*4 + 1 + 1) / 10 = 3.4 per block
#include "gt_harness.cuh"
#define RADIUS 7
#define BLOCK_SIZE 256
#define LEN (4096 * 256)
__global__ void req_stencil_halo(const int *__restrict__ in, int *__restrict__ out) {
  __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex];
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = (gindex < RADIUS) ? 0 : in[gindex - RADIUS];
    temp[lindex + BLOCK_SIZE] = in[gindex + BLOCK_SIZE];
  }
  __syncthreads();
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
  out[gindex] = result;
}
GT_HOST {
  int *in = gt::alloc<int>(LEN + 2 * BLOCK_SIZE), *out = gt::alloc<int>(LEN);
  dim3 block(BLOCK_SIZE), grid(LEN / BLOCK_SIZE);
  GT_LAUNCH(req_stencil_halo, grid, block, 0, in, out);
}
