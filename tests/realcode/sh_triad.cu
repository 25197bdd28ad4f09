// Distilled from SHOC src/cuda/level1/triad/Triad.cu (triad: C = A + s * B, one element per thread,
// no bounds check). Kernel unchanged. Host: the largest of the benchmark's block sizes (16384 KB,
// i.e. elemsInBlock = 4M floats), blockSize 128 and globalWorkSize = elemsInBlock / blockSize
// (32,768 blocks) as the original computes them; one launch on the default stream instead of the
// double-buffered stream pipeline; deterministic fill instead of drand48.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void triad(float* A, float* B, float* C, float s)
{
    int gid = threadIdx.x + (blockIdx.x * blockDim.x);
    C[gid] = A[gid] + s*B[gid];
}

int main()
{
    const size_t blockSizeKB = 16384;
    int elemsInBlock = blockSizeKB * 1024 / sizeof(float);
    float *h_mem = (float *)malloc(blockSizeKB * 1024);
    for (int j = 0; j < elemsInBlock; ++j)
        h_mem[j] = (float)(j % 100) / 10.0f;
    float *d_memA0, *d_memB0, *d_memC0;
    cudaMalloc((void**) &d_memA0, blockSizeKB * 1024);
    cudaMalloc((void**) &d_memB0, blockSizeKB * 1024);
    cudaMalloc((void**) &d_memC0, blockSizeKB * 1024);
    cudaMemcpy(d_memA0, h_mem, blockSizeKB * 1024, cudaMemcpyHostToDevice);
    cudaMemcpy(d_memB0, h_mem, blockSizeKB * 1024, cudaMemcpyHostToDevice);

    float scalar = 1.75f;
    const size_t blockSize = 128;
    size_t globalWorkSize = elemsInBlock / blockSize;
    triad<<<globalWorkSize, blockSize>>>
            (d_memA0, d_memB0, d_memC0, scalar);
    cudaDeviceSynchronize();

    cudaMemcpy(h_mem, d_memC0, sizeof(float), cudaMemcpyDeviceToHost);
    printf("C[0] = %f\n", h_mem[0]);
    free(h_mem);
    cudaFree(d_memA0); cudaFree(d_memB0); cudaFree(d_memC0);
    return 0;
}
