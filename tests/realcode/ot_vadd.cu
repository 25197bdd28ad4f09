// Distilled from the OLCF CUDA training series, exercises/hw3/vector_add_solution.cu (vadd): a
// grid-stride vector add. Kernel unchanged. Host: DSIZE lowered from 32 * 1048576 to 4 * 1048576; the
// exercise's `blocks`/`threads` (1 and 1 in the file, to be varied) set to the readme's case 2c,
// 160 blocks of 1024 threads (chosen there to fill a V100's 80 SMs), so each thread walks the loop
// 25.6 times on average; deterministic fill instead of rand().
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

const int DSIZE = 4*1048576;
// vector add kernel: C = A + B
__global__ void vadd(const float *A, const float *B, float *C, int ds){
  for (int idx = threadIdx.x+blockDim.x*blockIdx.x; idx < ds; idx+=gridDim.x*blockDim.x)         // a grid-stride loop
    C[idx] = A[idx] + B[idx]; // do the vector (element) add here
}

int main(){
  float *h_A, *h_B, *h_C, *d_A, *d_B, *d_C;
  h_A = new float[DSIZE];
  h_B = new float[DSIZE];
  h_C = new float[DSIZE];
  for (int i = 0; i < DSIZE; i++){
    h_A[i] = (float)(i % 1000) / 1000.0f;
    h_B[i] = (float)(i % 777) / 777.0f;
    h_C[i] = 0;}
  cudaMalloc(&d_A, DSIZE*sizeof(float));
  cudaMalloc(&d_B, DSIZE*sizeof(float));
  cudaMalloc(&d_C, DSIZE*sizeof(float));
  cudaMemcpy(d_A, h_A, DSIZE*sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B, DSIZE*sizeof(float), cudaMemcpyHostToDevice);
  int blocks = 160;  // modify this line for experimentation
  int threads = 1024; // modify this line for experimentation
  vadd<<<blocks, threads>>>(d_A, d_B, d_C, DSIZE);
  cudaDeviceSynchronize();
  cudaMemcpy(h_C, d_C, DSIZE*sizeof(float), cudaMemcpyDeviceToHost);
  printf("C[0] = %f\n", h_C[0]);
  delete[] h_A; delete[] h_B; delete[] h_C;
  cudaFree(d_A); cudaFree(d_B); cudaFree(d_C);
  return 0;
}
