// Distilled from the OLCF CUDA training series, exercises/hw5/reductions.cu: atomic_red (one atomicAdd
// per element), reduce_a (grid-stride loads into shared memory, parallel sweep, one atomicAdd per
// block) and reduce_ws (grid-stride loads, __shfl_down_sync warp sums, 32 partial sums in shared,
// one atomicAdd per block). Kernels unchanged (reduce, reduce_a's twin that stores per-block
// results, is left out). Host: N lowered from 8M to 4M floats (atomic_red: 16,384 blocks of 256);
// blocks = 640 as the original; all-ones fill; one launch each.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

const size_t N = 4ULL*1024ULL*1024ULL;  // data size
const int BLOCK_SIZE = 256;  // CUDA maximum is 1024

__global__ void atomic_red(const float *gdata, float *out){
  size_t idx = threadIdx.x+blockDim.x*blockIdx.x;
  if (idx < N) atomicAdd(out, gdata[idx]);
}

__global__ void reduce_a(float *gdata, float *out){
     __shared__ float sdata[BLOCK_SIZE];
     int tid = threadIdx.x;
     sdata[tid] = 0.0f;
     size_t idx = threadIdx.x+blockDim.x*blockIdx.x;

     while (idx < N) {  // grid stride loop to load data
        sdata[tid] += gdata[idx];
        idx += gridDim.x*blockDim.x;
        }

     for (unsigned int s=blockDim.x/2; s>0; s>>=1) {
        __syncthreads();
        if (tid < s)  // parallel sweep reduction
            sdata[tid] += sdata[tid + s];
        }
     if (tid == 0) atomicAdd(out, sdata[0]);
  }

__global__ void reduce_ws(float *gdata, float *out){
     __shared__ float sdata[32];
     int tid = threadIdx.x;
     int idx = threadIdx.x+blockDim.x*blockIdx.x;
     float val = 0.0f;
     unsigned mask = 0xFFFFFFFFU;
     int lane = threadIdx.x % warpSize;
     int warpID = threadIdx.x / warpSize;
     while (idx < N) {  // grid stride loop to load
        val += gdata[idx];
        idx += gridDim.x*blockDim.x;
        }

  // 1st warp-shuffle reduction
    for (int offset = warpSize/2; offset > 0; offset >>= 1)
       val += __shfl_down_sync(mask, val, offset);
    if (lane == 0) sdata[warpID] = val;
   __syncthreads(); // put warp results in shared mem

  // hereafter, just warp 0
    if (warpID == 0){
       // reload val from shared mem if warp existed
       val = (tid < blockDim.x/warpSize)?sdata[lane]:0;

       // final warp-shuffle reduction
       for (int offset = warpSize/2; offset > 0; offset >>= 1)
          val += __shfl_down_sync(mask, val, offset);

       if  (tid == 0) atomicAdd(out, val);
     }
  }

int main(){
  float *h_A, *h_sum, *d_A, *d_sum;
  h_A = new float[N];
  h_sum = new float;
  for (int i = 0; i < N; i++)
    h_A[i] = 1.0f;
  cudaMalloc(&d_A, N*sizeof(float));
  cudaMalloc(&d_sum, sizeof(float));
  cudaMemcpy(d_A, h_A, N*sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_sum, 0, sizeof(float));

  atomic_red<<<(N+BLOCK_SIZE-1)/BLOCK_SIZE, BLOCK_SIZE>>>(d_A, d_sum);
  cudaDeviceSynchronize();
  const int blocks = 640;
  cudaMemset(d_sum, 0, sizeof(float));
  reduce_a<<<blocks, BLOCK_SIZE>>>(d_A, d_sum);
  cudaDeviceSynchronize();
  cudaMemset(d_sum, 0, sizeof(float));
  reduce_ws<<<blocks, BLOCK_SIZE>>>(d_A, d_sum);
  cudaDeviceSynchronize();

  cudaMemcpy(h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost);
  printf("sum = %f\n", *h_sum);
  delete[] h_A; delete h_sum;
  cudaFree(d_A); cudaFree(d_sum);
  return 0;
}
