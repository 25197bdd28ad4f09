// Distilled from PolyBench/GPU CUDA/ATAX/atax.cu (atax_kernel1, atax_kernel2): y = A^T (A x);
// 32x8 blocks over a 1-D grid (the 8 rows of a block repeat the same i), accumulation into
// tmp[i] / y[j] in global memory.
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
#define NX 4096
#define NY 4096
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void atax_kernel1(int nx, int ny, DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        tmp[i] = 0;
        for (int j = 0; j < ny; j++)
            tmp[i] += A[i * NY + j] * x[j];
    }
}

__global__ void atax_kernel2(int nx, int ny, DATA_TYPE *A, DATA_TYPE *y, DATA_TYPE *tmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        y[j] = 0;
        for (int i = 0; i < nx; i++)
            y[j] += A[i * NY + j] * tmp[i];
    }
}

int main()
{
    int nx = NX, ny = NY;
    DATA_TYPE *A = to_device((size_t)NX * NY), *x = to_device(NY), *y = to_device(NY), *tmp = to_device(NX);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid1((size_t)(ceil(((float)NX) / ((float)block.x))), 1);
    dim3 grid2((size_t)(ceil(((float)NY) / ((float)block.x))), 1);
    atax_kernel1<<<grid1, block>>>(nx, ny, A, x, tmp);
    cudaDeviceSynchronize();
    atax_kernel2<<<grid2, block>>>(nx, ny, A, y, tmp);
    cudaDeviceSynchronize();
    return 0;
}
