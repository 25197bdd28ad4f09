// Distilled from PolyBench/GPU CUDA/JACOBI2D/jacobi2D.cu (runJacobiCUDA_kernel1, _kernel2): the
// 5-point average and the copy back on an N x N grid, 32x8 blocks.
// At PolyBench-ACC's STANDARD_DATASET sizes (N = 1024, its .cuh default);
// otherwise tests/realcode/pb_jacobi2d.cu.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

typedef float DATA_TYPE;

// Host buffers filled with values in [0.5, 1.5), copied to the device (no zeros: divisions stay finite).
static DATA_TYPE *to_device(size_t n)
{
    DATA_TYPE *h = (DATA_TYPE *)malloc(n * sizeof(DATA_TYPE));
    for (size_t i = 0; i < n; i++)
        h[i] = 0.5f + (DATA_TYPE)((i * 2654435761u) % 1000u) / 1000.0f;
    DATA_TYPE *d = NULL;
    cudaMalloc((void **)&d, n * sizeof(DATA_TYPE));
    cudaMemcpy(d, h, n * sizeof(DATA_TYPE), cudaMemcpyHostToDevice);
    free(h);
    return d;
}
#define N 1024
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void runJacobiCUDA_kernel1(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1)))
        B[i * N + j] = 0.2f * (A[i * N + j] + A[i * N + (j - 1)] + A[i * N + (1 + j)] + A[(1 + i) * N + j] + A[(i - 1) * N + j]);
}

__global__ void runJacobiCUDA_kernel2(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1)))
        A[i * N + j] = B[i * N + j];
}

int main()
{
    int n = N;
    DATA_TYPE *A = to_device((size_t)N * N), *B = to_device((size_t)N * N);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((unsigned int)ceil(((float)N) / ((float)block.x)), (unsigned int)ceil(((float)N) / ((float)block.y)));
    runJacobiCUDA_kernel1<<<grid, block>>>(n, A, B);
    cudaDeviceSynchronize();
    runJacobiCUDA_kernel2<<<grid, block>>>(n, A, B);
    cudaDeviceSynchronize();
    return 0;
}
