// Distilled from PolyBench/GPU CUDA/COVAR/covariance.cu (mean_kernel, reduce_kernel,
// covar_kernel): column means, centring (grid2's y extent divides by the X block size, as in
// the original), and the triangular covariance loop accumulating into symmat.
// At PolyBench-ACC's STANDARD_DATASET sizes (M = 2048, N = 2048, its .cuh default);
// otherwise tests/realcode/pb_covariance.cu.
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
#define M 2048
#define N 2048
#define FLOAT_N 3214212.01f
#define DIM_THREAD_BLOCK_KERNEL_1_X 256
#define DIM_THREAD_BLOCK_KERNEL_1_Y 1
#define DIM_THREAD_BLOCK_KERNEL_2_X 32
#define DIM_THREAD_BLOCK_KERNEL_2_Y 8
#define DIM_THREAD_BLOCK_KERNEL_3_X 256
#define DIM_THREAD_BLOCK_KERNEL_3_Y 1

__global__ void mean_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        mean[j] = 0.0;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * M + j];
        mean[j] /= (DATA_TYPE)FLOAT_N;
    }
}

__global__ void reduce_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < n) && (j < m))
        data[i * M + j] -= mean[j];
}

__global__ void covar_kernel(int m, int n, DATA_TYPE *symmat, DATA_TYPE *data)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            symmat[j1 * M + j2] = 0.0;
            for (int i = 0; i < n; i++)
                symmat[j1 * M + j2] += data[i * M + j1] * data[i * M + j2];
            symmat[j2 * M + j1] = symmat[j1 * M + j2];
        }
    }
}

int main()
{
    int m = M, n = N;
    DATA_TYPE *data = to_device((size_t)M * N), *mean = to_device(M), *symmat = to_device((size_t)M * M);
    dim3 block1(DIM_THREAD_BLOCK_KERNEL_1_X, DIM_THREAD_BLOCK_KERNEL_1_Y);
    dim3 grid1((size_t)(ceil((float)M) / ((float)DIM_THREAD_BLOCK_KERNEL_1_X)), 1);
    dim3 block2(DIM_THREAD_BLOCK_KERNEL_2_X, DIM_THREAD_BLOCK_KERNEL_2_Y);
    dim3 grid2((size_t)(ceil((float)M) / ((float)DIM_THREAD_BLOCK_KERNEL_2_X)), (size_t)(ceil((float)N) / ((float)DIM_THREAD_BLOCK_KERNEL_2_X)));
    dim3 block3(DIM_THREAD_BLOCK_KERNEL_3_X, DIM_THREAD_BLOCK_KERNEL_3_Y);
    dim3 grid3((size_t)(ceil((float)M) / ((float)DIM_THREAD_BLOCK_KERNEL_3_X)), 1);
    mean_kernel<<<grid1, block1>>>(m, n, mean, data);
    cudaDeviceSynchronize();
    reduce_kernel<<<grid2, block2>>>(m, n, mean, data);
    cudaDeviceSynchronize();
    covar_kernel<<<grid3, block3>>>(m, n, symmat, data);
    cudaDeviceSynchronize();
    return 0;
}
