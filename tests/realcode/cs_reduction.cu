// Distilled from cuda-samples Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu
// (reduce0, reduce1 for float): the block's values in dynamic shared memory, the tree with
// modulo-selected threads (reduce0) and with interleaved addressing 2*s*tid (reduce1, bank
// conflicts); 256 threads, dynamic shared memory of one float per thread.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void reduce0(float *g_idata, float *g_odata, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if ((tid % (2 * s)) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

__global__ void reduce1(float *g_idata, float *g_odata, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

int main()
{
    int size = 1 << 24;
    int threads = 256;
    int blocks = (size + threads - 1) / threads;
    float *h = (float *)malloc(size * sizeof(float));
    for (int i = 0; i < size; i++)
        h[i] = (float)(rand() & 0xFF) / (float)RAND_MAX;
    float *d_idata, *d_odata;
    cudaMalloc((void **)&d_idata, size * sizeof(float));
    cudaMalloc((void **)&d_odata, blocks * sizeof(float));
    cudaMemcpy(d_idata, h, size * sizeof(float), cudaMemcpyHostToDevice);
    dim3 dimBlock(threads, 1, 1);
    dim3 dimGrid(blocks, 1, 1);
    int smemSize = threads * sizeof(float);
    reduce0<<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
    cudaDeviceSynchronize();
    reduce1<<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
    cudaDeviceSynchronize();
    free(h);
    return 0;
}
