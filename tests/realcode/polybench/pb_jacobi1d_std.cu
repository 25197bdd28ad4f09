// Distilled from PolyBench/GPU CUDA/JACOBI1D/jacobi1D.cu (runJacobiCUDA_kernel1, _kernel2): the
// 3-point average and the copy back, interior guard, 256-thread blocks.
// At PolyBench-ACC's STANDARD_DATASET sizes (N = 4096, its .cuh default);
// otherwise tests/realcode/pb_jacobi1d.cu.
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
#define N 4096
#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

__global__ void runJacobiCUDA_kernel1(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i > 0) && (i < (n - 1)))
        B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
}

__global__ void runJacobiCUDA_kernel2(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if ((j > 0) && (j < (n - 1)))
        A[j] = B[j];
}

int main()
{
    int n = N;
    DATA_TYPE *A = to_device(N), *B = to_device(N);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((unsigned int)ceil(((float)N) / ((float)block.x)), 1);
    // The original repeats both for TSTEPS time steps; one step here.
    runJacobiCUDA_kernel1<<<grid, block>>>(n, A, B);
    cudaDeviceSynchronize();
    runJacobiCUDA_kernel2<<<grid, block>>>(n, A, B);
    cudaDeviceSynchronize();
    return 0;
}
