// Distilled from SHOC src/cuda/level0/DeviceMemory.cu: readGlobalMemoryCoalesced (each step a warp
// reads 16 runs of 32 consecutive floats, 32768 floats apart), readGlobalMemoryUnit (each thread
// reads 16 consecutive floats; threads 512 floats apart) and readLocalMemory (a 2048-float shared
// buffer filled with `litems` consecutive floats per thread, then read 16 consecutive words per
// step). Kernels unchanged. Host: globalWorkSize 32768 as the original, one of its group sizes,
// threads = 64 (so blocks = 32768 / 64 = 512 and litems = 2048 / 64 = 32), the 64 MB buffer
// lowered to 16 MB (4M floats; `size` must stay a power of two for the & masks), repeat counts
// at the original's minimum (maxRepeatsCoal 256, maxRepeatsUnit 16, maxRepeatsLocal 300: scalet
// 1); one launch each.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void
readGlobalMemoryCoalesced(float *data, float *output, int size, int repeat)
{
    int gid = threadIdx.x + (blockDim.x * blockIdx.x), j = 0;
    float sum = 0;
    int s = gid;
    for (j=0 ; j<repeat ; ++j)
    {
       float a0 = data[(s+0)&(size-1)];
       float a1 = data[(s+32768)&(size-1)];
       float a2 = data[(s+65536)&(size-1)];
       float a3 = data[(s+98304)&(size-1)];
       float a4 = data[(s+131072)&(size-1)];
       float a5 = data[(s+163840)&(size-1)];
       float a6 = data[(s+196608)&(size-1)];
       float a7 = data[(s+229376)&(size-1)];
       float a8 = data[(s+262144)&(size-1)];
       float a9 = data[(s+294912)&(size-1)];
       float a10 = data[(s+327680)&(size-1)];
       float a11 = data[(s+360448)&(size-1)];
       float a12 = data[(s+393216)&(size-1)];
       float a13 = data[(s+425984)&(size-1)];
       float a14 = data[(s+458752)&(size-1)];
       float a15 = data[(s+491520)&(size-1)];
       sum += a0+a1+a2+a3+a4+a5+a6+a7+a8+a9+a10+a11+a12+a13+a14+a15;
       s = (s+524288)&(size-1);
    }
    output[gid] = sum;
}

__global__ void
readGlobalMemoryUnit(float *data, float *output, int size, int repeat)
{
    int gid = threadIdx.x + (blockDim.x * blockIdx.x), j = 0;
    float sum = 0;
    int s = gid*512;
    for (j=0 ; j<repeat ; ++j)
    {
       float a0 = data[(s+0)&(size-1)];
       float a1 = data[(s+1)&(size-1)];
       float a2 = data[(s+2)&(size-1)];
       float a3 = data[(s+3)&(size-1)];
       float a4 = data[(s+4)&(size-1)];
       float a5 = data[(s+5)&(size-1)];
       float a6 = data[(s+6)&(size-1)];
       float a7 = data[(s+7)&(size-1)];
       float a8 = data[(s+8)&(size-1)];
       float a9 = data[(s+9)&(size-1)];
       float a10 = data[(s+10)&(size-1)];
       float a11 = data[(s+11)&(size-1)];
       float a12 = data[(s+12)&(size-1)];
       float a13 = data[(s+13)&(size-1)];
       float a14 = data[(s+14)&(size-1)];
       float a15 = data[(s+15)&(size-1)];
       sum += a0+a1+a2+a3+a4+a5+a6+a7+a8+a9+a10+a11+a12+a13+a14+a15;
       s = (s+16)&(size-1);
    }
    output[gid] = sum;
}

__global__ void
readLocalMemory(const float *data, float *output, int size, int repeat)
{
    int gid = threadIdx.x + (blockDim.x * blockIdx.x), j = 0;
    float sum = 0;
    int tid=threadIdx.x, localSize=blockDim.x, grpid=blockIdx.x,
            litems=2048/localSize, goffset=localSize*grpid+tid*litems;
    int s = tid;
    __shared__ float lbuf[2048];
    for ( ; j<litems && j<(size-goffset) ; ++j)
       lbuf[tid*litems+j] = data[goffset+j];
    for (int i=0 ; j<litems ; ++j,++i)
       lbuf[tid*litems+j] = data[i];
    __syncthreads();
    for (j=0 ; j<repeat ; ++j)
    {
       float a0 = lbuf[(s+0)&(2047)];
       float a1 = lbuf[(s+1)&(2047)];
       float a2 = lbuf[(s+2)&(2047)];
       float a3 = lbuf[(s+3)&(2047)];
       float a4 = lbuf[(s+4)&(2047)];
       float a5 = lbuf[(s+5)&(2047)];
       float a6 = lbuf[(s+6)&(2047)];
       float a7 = lbuf[(s+7)&(2047)];
       float a8 = lbuf[(s+8)&(2047)];
       float a9 = lbuf[(s+9)&(2047)];
       float a10 = lbuf[(s+10)&(2047)];
       float a11 = lbuf[(s+11)&(2047)];
       float a12 = lbuf[(s+12)&(2047)];
       float a13 = lbuf[(s+13)&(2047)];
       float a14 = lbuf[(s+14)&(2047)];
       float a15 = lbuf[(s+15)&(2047)];
       sum += a0+a1+a2+a3+a4+a5+a6+a7+a8+a9+a10+a11+a12+a13+a14+a15;
       s = (s+16)&(2047);
    }
    output[gid] = sum;
}

int main()
{
    size_t globalWorkSize = 32768;  // 64 * maxGroupSize = 64 * 512;
    unsigned int memSize       = 16*1024*1024;  // 16MB buffer (64MB in the original)
    const unsigned int numWordsFloat = memSize / sizeof(float);
    float *h_in  = new float[numWordsFloat];
    for (int i = 0; i < numWordsFloat; ++i)
        h_in[i] = (float)(i % 1000);
    float *d_mem1, *d_mem2;
    cudaMalloc((void**)&d_mem1, sizeof(float)*(numWordsFloat));
    cudaMalloc((void**)&d_mem2, sizeof(float)*(numWordsFloat));
    cudaMemcpy(d_mem1, h_in, memSize, cudaMemcpyHostToDevice);

    const unsigned int maxRepeatsCoal  = 256;
    const unsigned int maxRepeatsUnit  = 16;
    const unsigned int maxRepeatsLocal = 300;
    int threads = 64;
    const unsigned int blocks = globalWorkSize / threads;

    readGlobalMemoryCoalesced<<<blocks, threads>>>
            (d_mem1, d_mem2, numWordsFloat, maxRepeatsCoal);
    cudaDeviceSynchronize();
    readGlobalMemoryUnit<<<blocks, threads>>>
            (d_mem1, d_mem2, numWordsFloat, maxRepeatsUnit);
    cudaDeviceSynchronize();
    readLocalMemory<<<blocks, threads>>>
            (d_mem1, d_mem2, numWordsFloat, maxRepeatsLocal);
    cudaDeviceSynchronize();

    float r;
    cudaMemcpy(&r, d_mem2, sizeof(float), cudaMemcpyDeviceToHost);
    printf("out[0] = %f\n", r);
    delete[] h_in;
    cudaFree(d_mem1); cudaFree(d_mem2);
    return 0;
}
