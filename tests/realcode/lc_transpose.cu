// Distilled from Learn CUDA Programming (Packt) Chapter02/02_memory_overview/04_matrix_transpose/
// matrix_transpose.cu (matrix_transpose_naive, matrix_transpose_shared: a [32][32] int tile) and
// conflict_solved.cu (the same shared kernel with a [32][33] tile; here renamed
// matrix_transpose_shared_padded, and run at matrix_transpose.cu's N = 2048 instead of 1024).
// Block 32 x 32 (one element per thread), grid N/32 x N/32. Kernels unchanged.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N 2048
#define BLOCK_SIZE 32

__global__ void matrix_transpose_naive(int *input, int *output)
{
    int indexX = threadIdx.x + blockIdx.x * blockDim.x;
    int indexY = threadIdx.y + blockIdx.y * blockDim.y;
    int index = indexY * N + indexX;
    int transposedIndex = indexX * N + indexY;

    // this has discoalesced global memory store
    output[transposedIndex] = input[index];
}

__global__ void matrix_transpose_shared(int *input, int *output)
{
    __shared__ int sharedMemory[BLOCK_SIZE][BLOCK_SIZE];

    // global index
    int indexX = threadIdx.x + blockIdx.x * blockDim.x;
    int indexY = threadIdx.y + blockIdx.y * blockDim.y;

    // transposed global memory index
    int tindexX = threadIdx.x + blockIdx.y * blockDim.x;
    int tindexY = threadIdx.y + blockIdx.x * blockDim.y;

    // local index
    int localIndexX = threadIdx.x;
    int localIndexY = threadIdx.y;

    int index = indexY * N + indexX;
    int transposedIndex = tindexY * N + tindexX;

    // reading from global memory in coalesed manner and performing tanspose in shared memory
    sharedMemory[localIndexX][localIndexY] = input[index];

    __syncthreads();

    // writing into global memory in coalesed fashion via transposed data in shared memory
    output[transposedIndex] = sharedMemory[localIndexY][localIndexX];
}

__global__ void matrix_transpose_shared_padded(int *input, int *output)
{
    __shared__ int sharedMemory[BLOCK_SIZE][BLOCK_SIZE + 1];

    // global index
    int indexX = threadIdx.x + blockIdx.x * blockDim.x;
    int indexY = threadIdx.y + blockIdx.y * blockDim.y;

    // transposed global memory index
    int tindexX = threadIdx.x + blockIdx.y * blockDim.x;
    int tindexY = threadIdx.y + blockIdx.x * blockDim.y;

    // local index
    int localIndexX = threadIdx.x;
    int localIndexY = threadIdx.y;

    int index = indexY * N + indexX;
    int transposedIndex = tindexY * N + tindexX;

    // reading from global memory in coalesed manner and performing tanspose in shared memory
    sharedMemory[localIndexX][localIndexY] = input[index];

    __syncthreads();

    // writing into global memory in coalesed fashion via transposed data in shared memory
    output[transposedIndex] = sharedMemory[localIndexY][localIndexX];
}

// basically just fills the array with index.
void fill_array(int *data)
{
    for (int idx = 0; idx < (N * N); idx++)
        data[idx] = idx;
}

int main(void)
{
    int *a, *b;
    int *d_a, *d_b;
    int size = N * N * sizeof(int);

    a = (int *)malloc(size);
    fill_array(a);
    b = (int *)malloc(size);

    cudaMalloc((void **)&d_a, size);
    cudaMalloc((void **)&d_b, size);
    cudaMemcpy(d_a, a, size, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, size, cudaMemcpyHostToDevice);

    dim3 blockSize(BLOCK_SIZE, BLOCK_SIZE, 1);
    dim3 gridSize(N / BLOCK_SIZE, N / BLOCK_SIZE, 1);

    matrix_transpose_naive<<<gridSize, blockSize>>>(d_a, d_b);
    cudaDeviceSynchronize();
    matrix_transpose_shared<<<gridSize, blockSize>>>(d_a, d_b);
    cudaDeviceSynchronize();
    matrix_transpose_shared_padded<<<gridSize, blockSize>>>(d_a, d_b);
    cudaDeviceSynchronize();

    cudaMemcpy(b, d_b, size, cudaMemcpyDeviceToHost);
    free(a);
    free(b);
    cudaFree(d_a);
    cudaFree(d_b);
    return 0;
}
