// Distilled from NVIDIA developer blog code-samples series/cuda-cpp/coalescing-global/coalescing.cu
// (template kernels offset<T> and stride<T>, T = float, blockSize 256, nMB = 4 so n = 1M floats,
// d_a holds n * 33 elements). The original sweeps s = 0..32 (offset) and s = 1..32 (stride) in a
// host loop; here one launch each at offset 1, stride 2 and stride 8. The template is written out
// for float, and the stride kernel is written twice (stride, stride8: identical bodies) so that
// each profiled kernel has one launch. checkCuda and the timing events are dropped.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void offset(float *a, int s)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x + s;
    a[i] = a[i] + 1;
}

__global__ void stride(float *a, int s)
{
    int i = (blockDim.x * blockIdx.x + threadIdx.x) * s;
    a[i] = a[i] + 1;
}

__global__ void stride8(float *a, int s)
{
    int i = (blockDim.x * blockIdx.x + threadIdx.x) * s;
    a[i] = a[i] + 1;
}

// realcode-param: offset s=1
// realcode-param: stride s=2
// realcode-param: stride8 s=8
int main()
{
    int blockSize = 256;
    int nMB = 4;
    int n = nMB * 1024 * 1024 / sizeof(float);
    float *d_a;
    cudaMalloc(&d_a, n * 33 * sizeof(float));
    cudaMemset(d_a, 0, n * 33 * sizeof(float));
    offset<<<n / blockSize, blockSize>>>(d_a, 1);
    cudaDeviceSynchronize();
    stride<<<n / blockSize, blockSize>>>(d_a, 2);
    cudaDeviceSynchronize();
    stride8<<<n / blockSize, blockSize>>>(d_a, 8);
    cudaDeviceSynchronize();
    cudaFree(d_a);
    return 0;
}
