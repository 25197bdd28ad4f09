// Distilled from SHOC src/cuda/level1/reduction/reduction_kernel.h (reduce<float, 256>: each thread
// adds two elements blockSize apart per grid-stride step into dynamic shared memory, then an
// unrolled tree with a warp-synchronous volatile tail) and Reduction.cu's launch
// (reduce<T,256><<<num_blocks, num_threads, smem_size>>>). Kernel unchanged (the pre-1.3
// `extern volatile __shared__` branch is compiled out for sm_90 as in the original; the double
// SharedMem specialisation is left out). Host: SHOC's size class 4 (64 MiB, 16M floats) lowered
// to 4M floats (a multiple of 2 * 256, so g_idata[i+blockSize] stays in bounds), num_blocks
// raised from 64 to 512 so the GPU is full (the grid-stride loop covers the input either way);
// fill i % 3; one launch.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <class T>
class SharedMem
{
    public:
      __device__ inline T* getPointer()
      {
          extern __shared__ T s[];
          return s;
      };
};

template <>
class SharedMem <float>
{
    public:
      __device__ inline float* getPointer()
      {
          extern __shared__ float s_float[];
          return s_float;
      }
};

template <class T, int blockSize>
__global__ void
reduce(const T* __restrict__ g_idata, T* __restrict__ g_odata,
        const unsigned int n)
{
    const unsigned int tid = threadIdx.x;
    unsigned int i = (blockIdx.x*(blockDim.x*2)) + tid;
    const unsigned int gridSize = blockDim.x*2*gridDim.x;

#if __CUDA_ARCH__ <= 130
    extern volatile __shared__ float sdata[];
#else
    SharedMem<T> shared;
    volatile T* sdata = shared.getPointer();
#endif

    sdata[tid] = 0.0f;

    // Reduce multiple elements per thread
    while (i < n)
    {
        sdata[tid] += g_idata[i] + g_idata[i+blockSize];
        i += gridSize;
    }
    __syncthreads();

    // Reduce the contents of shared memory
    // NB: This is an unrolled loop, and assumes warp-syncrhonous
    // execution.
    if (blockSize >= 512)
    {
        if (tid < 256)
        {
            sdata[tid] += sdata[tid + 256];
        }
        __syncthreads();
    }
    if (blockSize >= 256)
    {
        if (tid < 128)
        {
            sdata[tid] += sdata[tid + 128];
        }
        __syncthreads();
    }
    if (blockSize >= 128)
    {
        if (tid < 64)  { sdata[tid] += sdata[tid + 64]; }  __syncthreads();
    }
    if (tid < warpSize)
    {
        // NB2: This section would also need __sync calls if warp
        // synchronous execution were not assumed
        if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
        if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
        if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
        if (blockSize >= 8)  sdata[tid] += sdata[tid + 4];
        if (blockSize >= 4)  sdata[tid] += sdata[tid + 2];
        if (blockSize >= 2)  sdata[tid] += sdata[tid + 1];
    }

    // Write result for this block to global memory
    if (tid == 0)
    {
        g_odata[blockIdx.x] = sdata[0];
    }
}

int main()
{
    typedef float T;
    int size = 4 * 1024 * 1024;
    T *h_idata = (T *)malloc(size * sizeof(T));
    for (int i = 0; i < size; i++)
        h_idata[i] = (T)(i % 3);

    int num_threads = 256; // NB: Update template to kernel launch
                           // if this is changed
    int num_blocks = 512;
    int smem_size = sizeof(T) * num_threads;

    T *d_idata, *d_odata;
    cudaMalloc((void**)&d_idata, size * sizeof(T));
    cudaMalloc((void**)&d_odata, num_blocks * sizeof(T));
    cudaMemcpy(d_idata, h_idata, size * sizeof(T), cudaMemcpyHostToDevice);

    reduce<T,256><<<num_blocks,num_threads, smem_size>>>
        (d_idata, d_odata, size);
    cudaDeviceSynchronize();

    T r;
    cudaMemcpy(&r, d_odata, sizeof(T), cudaMemcpyDeviceToHost);
    printf("odata[0] = %f\n", r);
    free(h_idata);
    cudaFree(d_idata); cudaFree(d_odata);
    return 0;
}
