// Distilled from PolyBench-ACC CUDA/linear-algebra/solvers/gramschmidt/gramschmidt.cu
// (gramschmidt_kernel1..3): one iteration of the host loop over the column k, at k = 1001 of
// NJ = 2048 (tests/realcode/pb_gramschmidt.cu runs k = 0). q[i*NJ + k] and a[i*NJ + k] start
// 4004 bytes into a row (not sector-aligned); kernel 3's guard j > k leaves lanes 0..9 of the
// warp at j = 992..1023 idle.
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
#define NI 2048
#define NJ 2048
#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

__global__ void gramschmidt_kernel1(int ni, int nj, DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid == 0) {
        DATA_TYPE nrm = 0.0;
        for (int i = 0; i < ni; i++)
            nrm += a[i * NJ + k] * a[i * NJ + k];
        r[k * NJ + k] = sqrt(nrm);
    }
}

__global__ void gramschmidt_kernel2(int ni, int nj, DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ni)
        q[i * NJ + k] = a[i * NJ + k] / r[k * NJ + k];
}

__global__ void gramschmidt_kernel3(int ni, int nj, DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if ((j > k) && (j < nj)) {
        r[k * NJ + j] = 0.0;
        for (int i = 0; i < ni; i++)
            r[k * NJ + j] += q[i * NJ + k] * a[i * NJ + j];
        for (int i = 0; i < ni; i++)
            a[i * NJ + j] -= q[i * NJ + k] * r[k * NJ + j];
    }
}

// realcode-param: gramschmidt_kernel1 k=1001
// realcode-param: gramschmidt_kernel2 k=1001
// realcode-param: gramschmidt_kernel3 k=1001
int main()
{
    int ni = NI, nj = NJ;
    DATA_TYPE *A = to_device((size_t)NI * NJ), *R = to_device((size_t)NJ * NJ), *Q = to_device((size_t)NI * NJ);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 gridKernel1(1, 1);
    dim3 gridKernel2((size_t)ceil(((float)NJ) / ((float)DIM_THREAD_BLOCK_X)), 1);
    dim3 gridKernel3((size_t)ceil(((float)NJ) / ((float)DIM_THREAD_BLOCK_X)), 1);
    int k = 1001;
    gramschmidt_kernel1<<<gridKernel1, block>>>(ni, nj, A, R, Q, k);
    cudaDeviceSynchronize();
    gramschmidt_kernel2<<<gridKernel2, block>>>(ni, nj, A, R, Q, k);
    cudaDeviceSynchronize();
    gramschmidt_kernel3<<<gridKernel3, block>>>(ni, nj, A, R, Q, k);
    cudaDeviceSynchronize();
    return 0;
}
