// Distilled from PolyBench/GPU CUDA/BICG/bicg.cu (bicg_kernel1, bicg_kernel2): s = A^T r (column
// walk, coalesced) and q = A p (row walk, lanes NY apart); 256-thread blocks.
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
#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

__global__ void bicg_kernel1(int nx, int ny, DATA_TYPE *A, DATA_TYPE *r, DATA_TYPE *s)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        s[j] = 0.0f;
        for (int i = 0; i < nx; i++)
            s[j] += r[i] * A[i * NY + j];
    }
}

__global__ void bicg_kernel2(int nx, int ny, DATA_TYPE *A, DATA_TYPE *p, DATA_TYPE *q)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        q[i] = 0.0f;
        for (int j = 0; j < ny; j++)
            q[i] += A[i * NY + j] * p[j];
    }
}

int main()
{
    int nx = NX, ny = NY;
    DATA_TYPE *A = to_device((size_t)NX * NY), *r = to_device(NX), *s = to_device(NY), *p = to_device(NY), *q = to_device(NX);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid1((size_t)(ceil(((float)NY) / ((float)block.x))), 1);
    dim3 grid2((size_t)(ceil(((float)NX) / ((float)block.x))), 1);
    bicg_kernel1<<<grid1, block>>>(nx, ny, A, r, s);
    cudaDeviceSynchronize();
    bicg_kernel2<<<grid2, block>>>(nx, ny, A, p, q);
    cudaDeviceSynchronize();
    return 0;
}
