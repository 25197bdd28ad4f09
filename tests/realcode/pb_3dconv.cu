// Distilled from PolyBench/GPU CUDA/3DCONV/3DConvolution.cu (convolution3D_kernel): one plane i
// per launch, 27-point-style stencil over k (x) and j (y), 32x8 blocks.
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

#define NI 256
#define NJ 256
#define NK 256
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void convolution3D_kernel(int ni, int nj, int nk, DATA_TYPE *A, DATA_TYPE *B, int i)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    DATA_TYPE c11 = +2, c21 = +5, c31 = -8;
    DATA_TYPE c12 = -3, c22 = +6, c32 = -9;
    DATA_TYPE c13 = +4, c23 = +7, c33 = +10;
    if ((i < (ni - 1)) && (j < (nj - 1)) && (k < (nk - 1)) && (i > 0) && (j > 0) && (k > 0)) {
        B[i * (NK * NJ) + j * NK + k] = c11 * A[(i - 1) * (NK * NJ) + (j - 1) * NK + (k - 1)] + c13 * A[(i + 1) * (NK * NJ) + (j - 1) * NK + (k - 1)]
            + c21 * A[(i - 1) * (NK * NJ) + (j - 1) * NK + (k - 1)] + c23 * A[(i + 1) * (NK * NJ) + (j - 1) * NK + (k - 1)]
            + c31 * A[(i - 1) * (NK * NJ) + (j - 1) * NK + (k - 1)] + c33 * A[(i + 1) * (NK * NJ) + (j - 1) * NK + (k - 1)]
            + c12 * A[(i + 0) * (NK * NJ) + (j - 1) * NK + (k + 0)] + c22 * A[(i + 0) * (NK * NJ) + (j + 0) * NK + (k + 0)]
            + c32 * A[(i + 0) * (NK * NJ) + (j + 1) * NK + (k + 0)] + c11 * A[(i - 1) * (NK * NJ) + (j - 1) * NK + (k + 1)]
            + c13 * A[(i + 1) * (NK * NJ) + (j - 1) * NK + (k + 1)] + c21 * A[(i - 1) * (NK * NJ) + (j + 0) * NK + (k + 1)]
            + c23 * A[(i + 1) * (NK * NJ) + (j + 0) * NK + (k + 1)] + c31 * A[(i - 1) * (NK * NJ) + (j + 1) * NK + (k + 1)]
            + c33 * A[(i + 1) * (NK * NJ) + (j + 1) * NK + (k + 1)];
    }
}

// realcode-param: convolution3D_kernel i=128
int main()
{
    int ni = NI, nj = NJ, nk = NK;
    DATA_TYPE *A = to_device((size_t)NI * NJ * NK), *B = to_device((size_t)NI * NJ * NK);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)(ceil(((float)NK) / ((float)block.x))), (size_t)(ceil(((float)NJ) / ((float)block.y))));
    // The original launches once per plane i = 1 .. NI-2; one plane here.
    int i = NI / 2;
    convolution3D_kernel<<<grid, block>>>(ni, nj, nk, A, B, i);
    cudaDeviceSynchronize();
    return 0;
}
