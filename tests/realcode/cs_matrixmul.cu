// Distilled from cuda-samples Samples/0_Introduction/matrixMul/matrixMul.cu (MatrixMulCUDA<32>):
// shared-memory tiled product, As[ty][k] (broadcast) times Bs[k][tx]; dimsA = 320 x 320,
// dimsB = 640 x 320 and the grid from dimsB.x / threads.x, as in the sample's defaults.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BLOCK_SIZE * by;
    int aEnd = aBegin + wA - 1;
    int aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx;
    int bStep = BLOCK_SIZE * wB;
    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}

static float *filled(size_t n, float v)
{
    float *h = (float *)malloc(n * sizeof(float)), *d;
    for (size_t i = 0; i < n; i++)
        h[i] = v;
    cudaMalloc((void **)&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    return d;
}

int main()
{
    int block_size = 32;
    dim3 dimsA(5 * 2 * block_size, 5 * 2 * block_size, 1);
    dim3 dimsB(5 * 4 * block_size, 5 * 2 * block_size, 1);
    float *d_A = filled((size_t)dimsA.x * dimsA.y, 1.0f), *d_B = filled((size_t)dimsB.x * dimsB.y, 0.01f);
    float *d_C = filled((size_t)dimsB.x * dimsA.y, 0.0f);
    dim3 threads(block_size, block_size);
    dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y);
    MatrixMulCUDA<32><<<grid, threads>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
    cudaDeviceSynchronize();
    return 0;
}
