// Distilled from PolyBench/GPU CUDA/DOITGEN/doitgen.cu (doitgen_kernel1, doitgen_kernel2): per
// slice r, sum[r][q][p] = sum_s A[r][q][s] * C4[s][p], then copy back; 32x8 blocks, the grid's
// y extent from NR as in the original.
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
#define NR 128
#define NQ 128
#define NP 128
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void doitgen_kernel1(DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4, int r)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int q = blockIdx.y * blockDim.y + threadIdx.y;
    if ((p < NP) && (q < NQ)) {
        sum[r * (NQ * NP) + q * NP + p] = (DATA_TYPE)0.0;
        for (int s = 0; s < NP; s++)
            sum[r * (NQ * NP) + q * NP + p] = sum[r * (NQ * NP) + q * NP + p] + A[r * (NQ * NP) + q * NP + s] * C4[s * NP + p];
    }
}

__global__ void doitgen_kernel2(DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4, int r)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int q = blockIdx.y * blockDim.y + threadIdx.y;
    if ((p < NP) && (q < NQ))
        A[r * (NQ * NP) + q * NP + p] = sum[r * (NQ * NP) + q * NP + p];
}

// realcode-param: doitgen_kernel1 r=3
// realcode-param: doitgen_kernel2 r=3
int main()
{
    DATA_TYPE *A = to_device((size_t)NR * NQ * NP), *sum = to_device((size_t)NR * NQ * NP), *C4 = to_device((size_t)NP * NP);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((unsigned int)ceil(((float)NP) / ((float)block.x)), (unsigned int)ceil(((float)NR) / ((float)block.y)));
    // The original loops r over 0 .. NR-1; one slice here.
    int r = 3;
    doitgen_kernel1<<<grid, block>>>(sum, A, C4, r);
    cudaDeviceSynchronize();
    doitgen_kernel2<<<grid, block>>>(sum, A, C4, r);
    cudaDeviceSynchronize();
    return 0;
}
