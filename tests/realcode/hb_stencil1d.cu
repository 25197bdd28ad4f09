// Distilled from HeCBench src/stencil1d-cuda/stencil_1d.cu (stencil_1d): a block's window plus a
// RADIUS halo on each side staged in shared memory by the first RADIUS threads, then a
// 15-point sum from shared memory; 256 threads, grid length / BLOCK_SIZE. The input is padded
// by BLOCK_SIZE + RADIUS here (the original pads by RADIUS and its last block reads past it).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define RADIUS 7
#define BLOCK_SIZE 256

__global__ void stencil_1d(const int *__restrict__ in, int *__restrict__ out)
{
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
    for (int offset = -RADIUS; offset <= RADIUS; offset++)
        result += temp[lindex + offset];
    out[gindex] = result;
}

int main()
{
    const int length = 16777216;
    int size = length * sizeof(int);
    int pad_size = (length + BLOCK_SIZE + RADIUS) * sizeof(int);
    int *a = (int *)malloc(pad_size);
    for (int i = 0; i < length + BLOCK_SIZE + RADIUS; i++)
        a[i] = i;
    int *d_a, *d_b;
    cudaMalloc((void **)&d_a, pad_size);
    cudaMalloc((void **)&d_b, size);
    cudaMemcpy(d_a, a, pad_size, cudaMemcpyHostToDevice);
    dim3 grids(length / BLOCK_SIZE);
    dim3 blocks(BLOCK_SIZE);
    stencil_1d<<<grids, blocks>>>(d_a, d_b);
    cudaDeviceSynchronize();
    free(a);
    return 0;
}
