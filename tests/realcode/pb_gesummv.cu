// Distilled from PolyBench/GPU CUDA/GESUMMV/gesummv.cu (gesummv_kernel): two row walks over A
// and B accumulating into tmp[i] and y[i] in global memory; 256-thread blocks.
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

__global__ void gesummv_kernel(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *tmp, DATA_TYPE *x, DATA_TYPE *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++) {
            tmp[i] += A[i * N + j] * x[j];
            y[i] += B[i * N + j] * x[j];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}

int main()
{
    int n = N;
    DATA_TYPE alpha = 43532.0f, beta = 12313.0f;
    DATA_TYPE *A = to_device((size_t)N * N), *B = to_device((size_t)N * N), *tmp = to_device(N), *x = to_device(N), *y = to_device(N);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((unsigned int)ceil(((float)N) / ((float)block.x)), 1);
    gesummv_kernel<<<grid, block>>>(n, alpha, beta, A, B, tmp, x, y);
    cudaDeviceSynchronize();
    return 0;
}
