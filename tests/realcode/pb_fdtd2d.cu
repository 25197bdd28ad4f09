// Distilled from PolyBench/GPU CUDA/FDTD-2D/fdtd2d.cu (fdtd_step1..3_kernel): the three field
// updates of one time step on an NX x NY grid, 32x8 blocks.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

typedef float DATA_TYPE;

// Host buffers filled with values in [0.5, 1.5), copied to the device (no zeros: divisions stay finite).
static DATA_TYPE *to_device(size_t n)
{
    DATA_TYPE *h = (DATA_TYPE *)malloc(n * sizeof(DATA_TYPE));
    for (size_t i = 0; i < n; i++)
        h[i] = 0.5f + (DATA_TYPE)((i * 2654435761u) % 1000u) / 1000.0f;
    DATA_TYPE *d = NULL;
    cudaMalloc((void **)&d, n * sizeof(DATA_TYPE));
    cudaMemcpy(d, h, n * sizeof(DATA_TYPE), cudaMemcpyHostToDevice);
    free(h);
    return d;
}
#define NX 2048
#define NY 2048
#define TMAX 500
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void fdtd_step1_kernel(int nx, int ny, DATA_TYPE *_fict_, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < nx) && (j < ny)) {
        if (i == 0)
            ey[i * NY + j] = _fict_[t];
        else
            ey[i * NY + j] = ey[i * NY + j] - 0.5f * (hz[i * NY + j] - hz[(i - 1) * NY + j]);
    }
}

__global__ void fdtd_step2_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < nx) && (j < ny) && (j > 0))
        ex[i * NY + j] = ex[i * NY + j] - 0.5f * (hz[i * NY + j] - hz[i * NY + (j - 1)]);
}

__global__ void fdtd_step3_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < (nx - 1)) && (j < (ny - 1)))
        hz[i * NY + j] = hz[i * NY + j] - 0.7f * (ex[i * NY + (j + 1)] - ex[i * NY + j] + ey[(i + 1) * NY + j] - ey[i * NY + j]);
}

// realcode-param: fdtd_step1_kernel t=0
// realcode-param: fdtd_step2_kernel t=0
// realcode-param: fdtd_step3_kernel t=0
int main()
{
    int nx = NX, ny = NY;
    DATA_TYPE *fict = to_device(TMAX), *ex = to_device((size_t)NX * (NY + 1)), *ey = to_device((size_t)(NX + 1) * NY);
    DATA_TYPE *hz = to_device((size_t)NX * NY);
    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)ceil(((float)NY) / ((float)block.x)), (size_t)ceil(((float)NX) / ((float)block.y)));
    // The original repeats the three steps for t = 0 .. TMAX-1; one step here.
    int t = 0;
    fdtd_step1_kernel<<<grid, block>>>(nx, ny, fict, ex, ey, hz, t);
    cudaDeviceSynchronize();
    fdtd_step2_kernel<<<grid, block>>>(nx, ny, ex, ey, hz, t);
    cudaDeviceSynchronize();
    fdtd_step3_kernel<<<grid, block>>>(nx, ny, ex, ey, hz, t);
    cudaDeviceSynchronize();
    return 0;
}
