// Distilled from PolyBench/GPU CUDA/GEMVER/gemver.cu (gemver_kernel1..3): rank-2 update of A
// (2-D), x += beta A^T y (column walk) and w += alpha A x (row walk), accumulating in global.
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
#define DIM_THREAD_BLOCK_KERNEL_1_X 32
#define DIM_THREAD_BLOCK_KERNEL_1_Y 8
#define DIM_THREAD_BLOCK_KERNEL_2_X 256
#define DIM_THREAD_BLOCK_KERNEL_2_Y 1
#define DIM_THREAD_BLOCK_KERNEL_3_X 256
#define DIM_THREAD_BLOCK_KERNEL_3_Y 1

__global__ void gemver_kernel1(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *v1, DATA_TYPE *v2, DATA_TYPE *u1, DATA_TYPE *u2)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < n) && (j < n))
        a[i * N + j] += u1[i] * v1[j] + u2[i] * v2[j];
}

__global__ void gemver_kernel2(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *x, DATA_TYPE *y, DATA_TYPE *z)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x[i] += beta * a[j * N + i] * y[j];
        x[i] += z[i];
    }
}

__global__ void gemver_kernel3(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *x, DATA_TYPE *w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >= 0) && (i < n)) {
        for (int j = 0; j < n; j++)
            w[i] += alpha * a[i * N + j] * x[j];
    }
}

int main()
{
    int n = N;
    DATA_TYPE alpha = 43532, beta = 12313;
    DATA_TYPE *A = to_device((size_t)N * N), *u1 = to_device(N), *v1 = to_device(N), *u2 = to_device(N), *v2 = to_device(N);
    DATA_TYPE *w = to_device(N), *x = to_device(N), *y = to_device(N), *z = to_device(N);
    dim3 block1(DIM_THREAD_BLOCK_KERNEL_1_X, DIM_THREAD_BLOCK_KERNEL_1_Y);
    dim3 grid1((size_t)(ceil((float)N) / ((float)DIM_THREAD_BLOCK_KERNEL_1_X)), (size_t)(ceil((float)N) / ((float)DIM_THREAD_BLOCK_KERNEL_1_Y)));
    dim3 block2(DIM_THREAD_BLOCK_KERNEL_2_X, DIM_THREAD_BLOCK_KERNEL_2_Y);
    dim3 grid2((size_t)(ceil((float)N) / ((float)DIM_THREAD_BLOCK_KERNEL_2_X)), 1);
    dim3 block3(DIM_THREAD_BLOCK_KERNEL_3_X, DIM_THREAD_BLOCK_KERNEL_3_Y);
    dim3 grid3((size_t)(ceil((float)N) / ((float)DIM_THREAD_BLOCK_KERNEL_3_X)), 1);
    gemver_kernel1<<<grid1, block1>>>(n, alpha, beta, A, v1, v2, u1, u2);
    cudaDeviceSynchronize();
    gemver_kernel2<<<grid2, block2>>>(n, alpha, beta, A, x, y, z);
    cudaDeviceSynchronize();
    gemver_kernel3<<<grid3, block3>>>(n, alpha, beta, A, x, w);
    cudaDeviceSynchronize();
    return 0;
}
