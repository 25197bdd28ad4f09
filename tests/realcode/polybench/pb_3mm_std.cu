// Distilled from PolyBench/GPU CUDA/3MM/3mm.cu (mm3_kernel1..3): three naive products E = A.B,
// F = C.D, G = E.F accumulating into global memory; grids from the block-size macros.
// At PolyBench-ACC's STANDARD_DATASET sizes (NI = 512, NJ = 512, NK = 512, NL = 512, NM = 512, its .cuh default);
// otherwise tests/realcode/pb_3mm.cu.
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
#define NL 512
#define NM 512
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void mm3_kernel1(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *E)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < ni) && (j < nj)) {
        E[i * NJ + j] = 0;
        for (int k = 0; k < nk; k++)
            E[i * NJ + j] += A[i * NK + k] * B[k * NJ + j];
    }
}

__global__ void mm3_kernel2(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE *F)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < nj) && (j < nl)) {
        F[i * NL + j] = 0;
        for (int k = 0; k < nm; k++)
            F[i * NL + j] += C[i * NM + k] * D[k * NL + j];
    }
}

__global__ void mm3_kernel3(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *E, DATA_TYPE *F, DATA_TYPE *G)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < ni) && (j < nl)) {
        G[i * NL + j] = 0;
        for (int k = 0; k < nj; k++)
            G[i * NL + j] += E[i * NJ + k] * F[k * NL + j];
    }
}

int main()
{
    int ni = NI, nj = NJ, nk = NK, nl = NL, nm = NM;
    DATA_TYPE *A = to_device((size_t)NI * NK), *B = to_device((size_t)NK * NJ), *C = to_device((size_t)NJ * NM);
    DATA_TYPE *D = to_device((size_t)NM * NL), *E = to_device((size_t)NI * NJ), *F = to_device((size_t)NJ * NL);
    DATA_TYPE *G = to_device((size_t)NI * NL);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid1((size_t)(ceil(((float)NJ) / ((float)DIM_THREAD_BLOCK_X))), (size_t)(ceil((float)NI / ((float)DIM_THREAD_BLOCK_Y))));
    dim3 grid2((size_t)(ceil(((float)NL) / ((float)DIM_THREAD_BLOCK_X))), (size_t)(ceil((float)NJ / ((float)DIM_THREAD_BLOCK_Y))));
    dim3 grid3((size_t)(ceil(((float)NL) / ((float)DIM_THREAD_BLOCK_X))), (size_t)(ceil((float)NI / ((float)DIM_THREAD_BLOCK_Y))));
    mm3_kernel1<<<grid1, block>>>(ni, nj, nk, nl, nm, A, B, E);
    cudaDeviceSynchronize();
    mm3_kernel2<<<grid2, block>>>(ni, nj, nk, nl, nm, C, D, F);
    cudaDeviceSynchronize();
    mm3_kernel3<<<grid3, block>>>(ni, nj, nk, nl, nm, E, F, G);
    cudaDeviceSynchronize();
    return 0;
}
