// Distilled from Learn CUDA Programming (Packt) Chapter03/03_cuda_thread_programming: the first
// pass of four sum reductions over 1 << 22 floats with 256 threads per block:
// 03_threadsync_and_reduction/reduction_shared_kernel.cu (reduction_kernel: shared memory,
// `idx_x % (stride * 2) == 0` selects the active threads), 05_warp_divergence/
// reduction_kernel_interleaving.cu (reduction_kernel_1: interleaved addressing, index = 2 * stride
// * threadIdx.x), 05_warp_divergence/reduction_kernel_sequential.cu (reduction_kernel_2:
// sequential addressing), and 07_warp_synchronous_programming/reduction_wp_kernel.cu
// (reduction_kernel there, renamed reduction_wp_kernel here: grid-stride loads of NUM_LOAD 4
// elements, __shfl_down_sync warp sums, 32 partial sums in a static __shared__ array; its grid is
// min(blocks per SM * SMs, blocks for size) from the occupancy API). Kernels unchanged. Host: the
// originals use 1 << 24 elements and loop the kernels down to one value (and the warp version
// launches again with one block); here each kernel runs once, on the input, each writing its own
// output array.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NUM_LOAD 4

__global__ void reduction_kernel(float *d_out, float *d_in, unsigned int size)
{
    unsigned int idx_x = blockIdx.x * blockDim.x + threadIdx.x;

    extern __shared__ float s_data[];

    s_data[threadIdx.x] = (idx_x < size) ? d_in[idx_x] : 0.f;

    __syncthreads();

    // do reduction
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        // thread synchronous reduction
        if ((idx_x % (stride * 2)) == 0)
            s_data[threadIdx.x] += s_data[threadIdx.x + stride];

        __syncthreads();
    }

    if (threadIdx.x == 0)
        d_out[blockIdx.x] = s_data[0];
}

__global__ void reduction_kernel_1(float *g_out, float *g_in, unsigned int size)
{
    unsigned int idx_x = blockIdx.x * blockDim.x + threadIdx.x;

    extern __shared__ float s_data[];

    s_data[threadIdx.x] = (idx_x < size) ? g_in[idx_x] : 0.f;

    __syncthreads();

    // do reduction
    // interleaved addressing
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        int index = 2 * stride * threadIdx.x;

        if (index < blockDim.x)
            s_data[index] += s_data[index + stride];

        __syncthreads();
    }

    if (threadIdx.x == 0)
        g_out[blockIdx.x] = s_data[0];
}

__global__ void reduction_kernel_2(float *g_out, float *g_in, unsigned int size)
{
    unsigned int idx_x = blockIdx.x * blockDim.x + threadIdx.x;

    extern __shared__ float s_data[];

    s_data[threadIdx.x] = (idx_x < size) ? g_in[idx_x] : 0.f;

    __syncthreads();

    // do reduction
    // sequential addressing
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            s_data[threadIdx.x] += s_data[threadIdx.x + stride];

        __syncthreads();
    }

    if (threadIdx.x == 0)
        g_out[blockIdx.x] = s_data[0];
}

__inline__ __device__ float warp_reduce_sum(float val)
{
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
        unsigned int mask = __activemask();
        val += __shfl_down_sync(mask, val, offset);
    }
    return val;
}

__inline__ __device__ float block_reduce_sum(float val)
{
    static __shared__ float shared[32]; // Shared mem for 32 partial sums
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;

    val = warp_reduce_sum(val); // Each warp performs partial reduction

    if (lane == 0)
        shared[wid] = val; // Write reduced value to shared memory

    __syncthreads(); // Wait for all partial reductions

    // read from shared memory only if that warp existed
    if (wid == 0) {
        val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
        val = warp_reduce_sum(val); // Final reduce within first warp
    }

    return val;
}

__global__ void reduction_wp_kernel(float *g_out, float *g_in, unsigned int size)
{
    unsigned int idx_x = blockIdx.x * blockDim.x + threadIdx.x;

    // cumulates input with grid-stride loop and save to share memory
    float sum[NUM_LOAD] = {0.f};
    for (int i = idx_x; i < size; i += blockDim.x * gridDim.x * NUM_LOAD) {
        for (int step = 0; step < NUM_LOAD; step++)
            sum[step] += (i + step * blockDim.x * gridDim.x < size) ? g_in[i + step * blockDim.x * gridDim.x] : 0.f;
    }
    for (int i = 1; i < NUM_LOAD; i++)
        sum[0] += sum[i];
    // warp synchronous reduction
    sum[0] = block_reduce_sum(sum[0]);

    if (threadIdx.x == 0)
        g_out[blockIdx.x] = sum[0];
}

int main()
{
    unsigned int size = 1 << 22;
    int n_threads = 256;
    float *h_inPtr = (float *)malloc(size * sizeof(float));
    for (unsigned int i = 0; i < size; i++)
        h_inPtr[i] = (float)(i & 0xff) / 256.f;
    float *d_inPtr, *d_out0, *d_out1, *d_out2, *d_out3;
    cudaMalloc((void **)&d_inPtr, size * sizeof(float));
    int n_blocks = (size + n_threads - 1) / n_threads;
    cudaMalloc((void **)&d_out0, n_blocks * sizeof(float));
    cudaMalloc((void **)&d_out1, n_blocks * sizeof(float));
    cudaMalloc((void **)&d_out2, n_blocks * sizeof(float));
    cudaMalloc((void **)&d_out3, n_blocks * sizeof(float));
    cudaMemcpy(d_inPtr, h_inPtr, size * sizeof(float), cudaMemcpyHostToDevice);

    reduction_kernel<<<n_blocks, n_threads, n_threads * sizeof(float), 0>>>(d_out0, d_inPtr, size);
    cudaDeviceSynchronize();
    reduction_kernel_1<<<n_blocks, n_threads, n_threads * sizeof(float), 0>>>(d_out1, d_inPtr, size);
    cudaDeviceSynchronize();
    reduction_kernel_2<<<n_blocks, n_threads, n_threads * sizeof(float), 0>>>(d_out2, d_inPtr, size);
    cudaDeviceSynchronize();

    int num_sms;
    int num_blocks_per_sm;
    cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&num_blocks_per_sm, reduction_wp_kernel, n_threads, n_threads * sizeof(float));
    int wp_blocks = min(num_blocks_per_sm * num_sms, (int)((size + n_threads - 1) / n_threads));
    reduction_wp_kernel<<<wp_blocks, n_threads>>>(d_out3, d_inPtr, size);
    cudaDeviceSynchronize();

    cudaFree(d_inPtr);
    cudaFree(d_out0);
    cudaFree(d_out1);
    cudaFree(d_out2);
    cudaFree(d_out3);
    free(h_inPtr);
    return 0;
}
