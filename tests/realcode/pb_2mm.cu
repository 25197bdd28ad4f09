// Distilled from PolyBench/GPU CUDA/2MM/2mm.cu (mm2_kernel1, mm2_kernel2): naive products that
// accumulate into the global output element inside the k loop, 32x8 blocks.
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
#define NK 1024
#define NL 1024
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void mm2_kernel1(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *A, DATA_TYPE *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < ni) && (j < nj)) {
        tmp[i * NJ + j] = 0;
        for (int k = 0; k < nk; k++)
            tmp[i * NJ + j] += alpha * A[i * NK + k] * B[k * NJ + j];
    }
}

__global__ void mm2_kernel2(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *C, DATA_TYPE *D)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < ni) && (j < nl)) {
        D[i * NL + j] *= beta;
        for (int k = 0; k < nj; k++)
            D[i * NL + j] += tmp[i * NJ + k] * C[k * NL + j];
    }
}

int main()
{
    int ni = NI, nj = NJ, nk = NK, nl = NL;
    DATA_TYPE alpha = 32412, beta = 2123;
    DATA_TYPE *A = to_device((size_t)NI * NK), *B = to_device((size_t)NK * NJ), *C = to_device((size_t)NL * NJ);
    DATA_TYPE *D = to_device((size_t)NI * NL), *tmp = to_device((size_t)NI * NJ);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid1((size_t)ceil(((float)NJ) / ((float)block.x)), (size_t)ceil(((float)NI) / ((float)block.y)));
    dim3 grid2((size_t)ceil(((float)NL) / ((float)block.x)), (size_t)ceil(((float)NI) / ((float)block.y)));
    mm2_kernel1<<<grid1, block>>>(ni, nj, nk, nl, alpha, beta, tmp, A, B);
    cudaDeviceSynchronize();
    mm2_kernel2<<<grid2, block>>>(ni, nj, nk, nl, alpha, beta, tmp, C, D);
    cudaDeviceSynchronize();
    return 0;
}
