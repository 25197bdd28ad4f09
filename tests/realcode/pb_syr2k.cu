// Distilled from PolyBench/GPU CUDA/SYR2K/syr2k.cu (syr2k_kernel): C = alpha (A B^T + B A^T) +
// beta C; lanes walk rows j of A and B (NJ apart), accumulation into c[i*NI + j].
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
#define NI 1024
#define NJ 1024
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void syr2k_kernel(int ni, int nj, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < NI) && (j < NI)) {
        c[i * NI + j] *= beta;
        for (int k = 0; k < NJ; k++)
            c[i * NI + j] += alpha * a[i * NJ + k] * b[j * NJ + k] + alpha * b[i * NJ + k] * a[j * NJ + k];
    }
}

int main()
{
    int ni = NI, nj = NJ;
    DATA_TYPE alpha = 32412, beta = 2123;
    DATA_TYPE *A = to_device((size_t)NI * NJ), *B = to_device((size_t)NI * NJ), *C = to_device((size_t)NI * NI);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)ceil(((float)NI) / ((float)DIM_THREAD_BLOCK_X)), (size_t)(ceil(((float)NI) / ((float)DIM_THREAD_BLOCK_Y))));
    syr2k_kernel<<<grid, block>>>(ni, nj, alpha, beta, A, B, C);
    cudaDeviceSynchronize();
    return 0;
}
