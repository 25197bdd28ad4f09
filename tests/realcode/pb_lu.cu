// Distilled from PolyBench/GPU CUDA/LU/lu.cu (lu_kernel1, lu_kernel2): row scaling and the
// trailing update for one pivot k; both launched with a single block as in the original
// (grid1 = grid2 = (1, 1, 1)).
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
#define N 2048
#define DIM_THREAD_BLOCK_KERNEL_1_X 256
#define DIM_THREAD_BLOCK_KERNEL_1_Y 1
#define DIM_THREAD_BLOCK_KERNEL_2_X 32
#define DIM_THREAD_BLOCK_KERNEL_2_Y 8

__global__ void lu_kernel1(int n, DATA_TYPE *A, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if ((j > k) && (j < n))
        A[k * N + j] = A[k * N + j] / A[k * N + k];
}

__global__ void lu_kernel2(int n, DATA_TYPE *A, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i > k) && (j > k) && (i < n) && (j < n))
        A[i * N + j] = A[i * N + j] - A[i * N + k] * A[k * N + j];
}

// realcode-param: lu_kernel1 k=0
// realcode-param: lu_kernel2 k=0
int main()
{
    int n = N;
    DATA_TYPE *A = to_device((size_t)N * N);
    dim3 block1(DIM_THREAD_BLOCK_KERNEL_1_X, DIM_THREAD_BLOCK_KERNEL_1_Y);
    dim3 block2(DIM_THREAD_BLOCK_KERNEL_2_X, DIM_THREAD_BLOCK_KERNEL_2_Y);
    dim3 grid1(1, 1, 1);
    dim3 grid2(1, 1, 1);
    // The original runs both for k = 0 .. N-1; pivot 0 here.
    int k = 0;
    lu_kernel1<<<grid1, block1>>>(n, A, k);
    cudaDeviceSynchronize();
    lu_kernel2<<<grid2, block2>>>(n, A, k);
    cudaDeviceSynchronize();
    return 0;
}
