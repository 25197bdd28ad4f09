// Distilled from PolyBench-ACC CUDA/linear-algebra/solvers/lu/lu.cu (lu_kernel1, lu_kernel2):
// one iteration of the host loop over the pivot k, at k = 1001 of N = 2048, with the grids that
// loop computes for it: grid1.x = ceil((N - (k + 1)) / 256) = 5 and grid2 =
// (ceil(1046 / 32), ceil(1046 / 8)) = (33, 131). Threads index from 0 and the guards keep
// j > k (and i > k): lu_kernel1's active lanes are j = 1002..1279 (a partial warp at
// 1002..1023), lu_kernel2's i = 1002..1047, j = 1002..1055. (The grid covers N - k - 1
// threads counted from 0, not from k + 1: columns past 1279 are never updated at this k.)
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

// realcode-param: lu_kernel1 k=1001
// realcode-param: lu_kernel2 k=1001
int main()
{
    int n = N;
    DATA_TYPE *A = to_device((size_t)N * N);
    dim3 block1(DIM_THREAD_BLOCK_KERNEL_1_X, DIM_THREAD_BLOCK_KERNEL_1_Y);
    dim3 block2(DIM_THREAD_BLOCK_KERNEL_2_X, DIM_THREAD_BLOCK_KERNEL_2_Y);
    dim3 grid1(1, 1, 1);
    dim3 grid2(1, 1, 1);
    int k = 1001;
    grid1.x = (unsigned int)(ceil((float)(N - (k + 1)) / ((float)block1.x)));
    lu_kernel1<<<grid1, block1>>>(n, A, k);
    cudaDeviceSynchronize();
    grid2.x = (unsigned int)(ceil((float)(N - (k + 1)) / ((float)block2.x)));
    grid2.y = (unsigned int)(ceil((float)(N - (k + 1)) / ((float)block2.y)));
    lu_kernel2<<<grid2, block2>>>(n, A, k);
    cudaDeviceSynchronize();
    return 0;
}
