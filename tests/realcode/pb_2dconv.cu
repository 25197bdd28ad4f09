// Distilled from PolyBench/GPU CUDA/2DCONV/2DConvolution.cu (convolution2D_kernel): the 3x3
// stencil over a row-major NI x NJ image, interior guard, 32x8 blocks, grid from float ceil.
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

#define NI 4096
#define NJ 4096
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void convolution2D_kernel(int ni, int nj, DATA_TYPE *A, DATA_TYPE *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    DATA_TYPE c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
    DATA_TYPE c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
    DATA_TYPE c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
    if ((i < ni - 1) && (j < nj - 1) && (i > 0) && (j > 0)) {
        B[i * NJ + j] = c11 * A[(i - 1) * NJ + (j - 1)] + c21 * A[(i - 1) * NJ + (j + 0)] + c31 * A[(i - 1) * NJ + (j + 1)]
                      + c12 * A[(i + 0) * NJ + (j - 1)] + c22 * A[(i + 0) * NJ + (j + 0)] + c32 * A[(i + 0) * NJ + (j + 1)]
                      + c13 * A[(i + 1) * NJ + (j - 1)] + c23 * A[(i + 1) * NJ + (j + 0)] + c33 * A[(i + 1) * NJ + (j + 1)];
    }
}

int main()
{
    int ni = NI, nj = NJ;
    DATA_TYPE *A = to_device((size_t)NI * NJ), *B = to_device((size_t)NI * NJ);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)ceil(((float)NI) / ((float)block.x)), (size_t)ceil(((float)NJ) / ((float)block.y)));
    convolution2D_kernel<<<grid, block>>>(ni, nj, A, B);
    cudaDeviceSynchronize();
    cudaFree(A); cudaFree(B);
    return 0;
}
