// Distilled from PolyBench/GPU CUDA/GEMM/gemm.cu (gemm_kernel): C = alpha A B + beta C with the
// k loop accumulating into c[i*NJ + j]; 32x8 blocks, grid x from NI and y from NJ.
// At PolyBench-ACC's STANDARD_DATASET sizes (NI = 512, NJ = 512, NK = 512, its .cuh default);
// otherwise tests/realcode/pb_gemm.cu.
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
#define NI 512
#define NJ 512
#define NK 512
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void gemm_kernel(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < ni) && (j < nj)) {
        c[i * NJ + j] *= beta;
        for (int k = 0; k < nk; k++)
            c[i * NJ + j] += alpha * a[i * NK + k] * b[k * NJ + j];
    }
}

int main()
{
    int ni = NI, nj = NJ, nk = NK;
    DATA_TYPE alpha = 32412, beta = 2123;
    DATA_TYPE *A = to_device((size_t)NI * NK), *B = to_device((size_t)NK * NJ), *C = to_device((size_t)NI * NJ);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)(ceil(((float)NI) / ((float)block.x))), (size_t)(ceil(((float)NJ) / ((float)block.y))));
    gemm_kernel<<<grid, block>>>(ni, nj, nk, alpha, beta, A, B, C);
    cudaDeviceSynchronize();
    return 0;
}
