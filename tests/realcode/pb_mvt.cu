// Distilled from PolyBench/GPU CUDA/MVT/mvt.cu (mvt_kernel1, mvt_kernel2): x1 += A y1 (row walk)
// and x2 += A^T y2 (column walk), accumulating in global; 256-thread blocks.
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

__global__ void mvt_kernel1(int n, DATA_TYPE *a, DATA_TYPE *x1, DATA_TYPE *y_1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x1[i] += a[i * N + j] * y_1[j];
    }
}

__global__ void mvt_kernel2(int n, DATA_TYPE *a, DATA_TYPE *x2, DATA_TYPE *y_2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x2[i] += a[j * N + i] * y_2[j];
    }
}

int main()
{
    int n = N;
    DATA_TYPE *a = to_device((size_t)N * N), *x1 = to_device(N), *x2 = to_device(N), *y1 = to_device(N), *y2 = to_device(N);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)ceil((float)N / ((float)DIM_THREAD_BLOCK_X)), 1);
    mvt_kernel1<<<grid, block>>>(n, a, x1, y1);
    cudaDeviceSynchronize();
    mvt_kernel2<<<grid, block>>>(n, a, x2, y2);
    cudaDeviceSynchronize();
    return 0;
}
