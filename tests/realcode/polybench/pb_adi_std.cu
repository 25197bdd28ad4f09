// Distilled from PolyBench/GPU CUDA/ADI/adi.cu (adi_kernel1..6): alternating-direction sweeps;
// kernels 1-3 walk a row per thread (lanes N elements apart), kernels 4-6 a column per launch.
// PolyBench/GPU launches one block of 256 threads (grid1(1, 1, 1), tests/realcode/pb_adi.cu);
// PolyBench-ACC then sets `grid1.x = ceil(N / block1.x)`: 4 blocks for N = 1024, as here.
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
#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

__global__ void adi_kernel1(int n, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X)
{
    int i1 = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i1 < n)) {
        for (int i2 = 1; i2 < n; i2++) {
            X[i1 * N + i2] = X[i1 * N + i2] - X[i1 * N + (i2 - 1)] * A[i1 * N + i2] / B[i1 * N + (i2 - 1)];
            B[i1 * N + i2] = B[i1 * N + i2] - A[i1 * N + i2] * A[i1 * N + i2] / B[i1 * N + (i2 - 1)];
        }
    }
}

__global__ void adi_kernel2(int n, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X)
{
    int i1 = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i1 < n))
        X[i1 * N + (N - 1)] = X[i1 * N + (N - 1)] / B[i1 * N + (N - 1)];
}

__global__ void adi_kernel3(int n, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X)
{
    int i1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (i1 < n) {
        for (int i2 = 0; i2 < n - 2; i2++)
            X[i1 * N + (N - i2 - 2)] = (X[i1 * N + (N - 2 - i2)] - X[i1 * N + (N - 2 - i2 - 1)] * A[i1 * N + (N - i2 - 3)]) / B[i1 * N + (N - 3 - i2)];
    }
}

__global__ void adi_kernel4(int n, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int i1)
{
    int i2 = blockIdx.x * blockDim.x + threadIdx.x;
    if (i2 < n) {
        X[i1 * N + i2] = X[i1 * N + i2] - X[(i1 - 1) * N + i2] * A[i1 * N + i2] / B[(i1 - 1) * N + i2];
        B[i1 * N + i2] = B[i1 * N + i2] - A[i1 * N + i2] * A[i1 * N + i2] / B[(i1 - 1) * N + i2];
    }
}

__global__ void adi_kernel5(int n, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X)
{
    int i2 = blockIdx.x * blockDim.x + threadIdx.x;
    if (i2 < n)
        X[(N - 1) * N + i2] = X[(N - 1) * N + i2] / B[(N - 1) * N + i2];
}

__global__ void adi_kernel6(int n, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int i1)
{
    int i2 = blockIdx.x * blockDim.x + threadIdx.x;
    if (i2 < n)
        X[(N - 2 - i1) * N + i2] = (X[(N - 2 - i1) * N + i2] - X[(N - i1 - 3) * N + i2] * A[(N - 3 - i1) * N + i2]) / B[(N - 2 - i1) * N + i2];
}

// realcode-param: adi_kernel4 i1=1
// realcode-param: adi_kernel6 i1=0
int main()
{
    int n = N;
    DATA_TYPE *A = to_device((size_t)N * N), *B = to_device((size_t)N * N), *X = to_device((size_t)N * N);
    dim3 block1(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y, 1);
    dim3 grid1(1, 1, 1);
    grid1.x = (size_t)(ceil(((float)N) / ((float)block1.x)));
    // The original runs kernels 4 and 6 for every i1; one launch each here.
    adi_kernel1<<<grid1, block1>>>(n, A, B, X);
    cudaDeviceSynchronize();
    adi_kernel2<<<grid1, block1>>>(n, A, B, X);
    cudaDeviceSynchronize();
    adi_kernel3<<<grid1, block1>>>(n, A, B, X);
    cudaDeviceSynchronize();
    adi_kernel4<<<grid1, block1>>>(n, A, B, X, 1);
    cudaDeviceSynchronize();
    adi_kernel5<<<grid1, block1>>>(n, A, B, X);
    cudaDeviceSynchronize();
    adi_kernel6<<<grid1, block1>>>(n, A, B, X, 0);
    cudaDeviceSynchronize();
    return 0;
}
