// Distilled from NVIDIA developer blog code-samples series/cuda-cpp/finite-difference/
// finite-difference.cu (derivative_x, derivative_x_lPencils, derivative_y, derivative_y_lPencils):
// mx = my = mz = 64, sPencils 4, lPencils 32, the stencil weights in __constant__ memory, and the
// original's execution configurations grid[d][p] / block[d][p] for d = x, y. Kernels unchanged;
// the z derivatives, the timing loop, the error check and the fpDeriv function-pointer table are
// dropped (each kernel is launched directly with its configuration). f is filled with the
// original's cos(fx*twopi*(i-1)/(mx-1)) profile along the differentiated dimension.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

float fx = 1.0f, fy = 1.0f, fz = 1.0f;
const int mx = 64, my = 64, mz = 64;

const int sPencils = 4;  // small # pencils
const int lPencils = 32; // large # pencils

dim3 grid[3][2], block[3][2];

__constant__ float c_ax, c_bx, c_cx, c_dx;
__constant__ float c_ay, c_by, c_cy, c_dy;

__global__ void derivative_x(float *f, float *df)
{
    __shared__ float s_f[sPencils][mx + 8]; // 4-wide halo

    int i = threadIdx.x;
    int j = blockIdx.x * blockDim.y + threadIdx.y;
    int k = blockIdx.y;
    int si = i + 4;       // local i for shared memory access + halo offset
    int sj = threadIdx.y; // local j for shared memory access

    int globalIdx = k * mx * my + j * mx + i;

    s_f[sj][si] = f[globalIdx];

    __syncthreads();

    if (i < 4) {
        s_f[sj][si - 4] = s_f[sj][si + mx - 5];
        s_f[sj][si + mx] = s_f[sj][si + 1];
    }

    __syncthreads();

    df[globalIdx] =
        (c_ax * (s_f[sj][si + 1] - s_f[sj][si - 1])
         + c_bx * (s_f[sj][si + 2] - s_f[sj][si - 2])
         + c_cx * (s_f[sj][si + 3] - s_f[sj][si - 3])
         + c_dx * (s_f[sj][si + 4] - s_f[sj][si - 4]));
}

__global__ void derivative_x_lPencils(float *f, float *df)
{
    __shared__ float s_f[lPencils][mx + 8]; // 4-wide halo

    int i = threadIdx.x;
    int jBase = blockIdx.x * lPencils;
    int k = blockIdx.y;
    int si = i + 4;

    for (int sj = threadIdx.y; sj < lPencils; sj += blockDim.y) {
        int globalIdx = k * mx * my + (jBase + sj) * mx + i;
        s_f[sj][si] = f[globalIdx];
    }

    __syncthreads();

    if (i < 4) {
        for (int sj = threadIdx.y; sj < lPencils; sj += blockDim.y) {
            s_f[sj][si - 4] = s_f[sj][si + mx - 5];
            s_f[sj][si + mx] = s_f[sj][si + 1];
        }
    }

    __syncthreads();

    for (int sj = threadIdx.y; sj < lPencils; sj += blockDim.y) {
        int globalIdx = k * mx * my + (jBase + sj) * mx + i;
        df[globalIdx] =
            (c_ax * (s_f[sj][si + 1] - s_f[sj][si - 1])
             + c_bx * (s_f[sj][si + 2] - s_f[sj][si - 2])
             + c_cx * (s_f[sj][si + 3] - s_f[sj][si - 3])
             + c_dx * (s_f[sj][si + 4] - s_f[sj][si - 4]));
    }
}

__global__ void derivative_y(float *f, float *df)
{
    __shared__ float s_f[my + 8][sPencils];

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = threadIdx.y;
    int k = blockIdx.y;
    int si = threadIdx.x;
    int sj = j + 4;

    int globalIdx = k * mx * my + j * mx + i;

    s_f[sj][si] = f[globalIdx];

    __syncthreads();

    if (j < 4) {
        s_f[sj - 4][si] = s_f[sj + my - 5][si];
        s_f[sj + my][si] = s_f[sj + 1][si];
    }

    __syncthreads();

    df[globalIdx] =
        (c_ay * (s_f[sj + 1][si] - s_f[sj - 1][si])
         + c_by * (s_f[sj + 2][si] - s_f[sj - 2][si])
         + c_cy * (s_f[sj + 3][si] - s_f[sj - 3][si])
         + c_dy * (s_f[sj + 4][si] - s_f[sj - 4][si]));
}

__global__ void derivative_y_lPencils(float *f, float *df)
{
    __shared__ float s_f[my + 8][lPencils];

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = blockIdx.y;
    int si = threadIdx.x;

    for (int j = threadIdx.y; j < my; j += blockDim.y) {
        int globalIdx = k * mx * my + j * mx + i;
        int sj = j + 4;
        s_f[sj][si] = f[globalIdx];
    }

    __syncthreads();

    int sj = threadIdx.y + 4;
    if (sj < 8) {
        s_f[sj - 4][si] = s_f[sj + my - 5][si];
        s_f[sj + my][si] = s_f[sj + 1][si];
    }

    __syncthreads();

    for (int j = threadIdx.y; j < my; j += blockDim.y) {
        int globalIdx = k * mx * my + j * mx + i;
        int sj = j + 4;
        df[globalIdx] =
            (c_ay * (s_f[sj + 1][si] - s_f[sj - 1][si])
             + c_by * (s_f[sj + 2][si] - s_f[sj - 2][si])
             + c_cy * (s_f[sj + 3][si] - s_f[sj - 3][si])
             + c_dy * (s_f[sj + 4][si] - s_f[sj - 4][si]));
    }
}

void setDerivativeParameters()
{
    float dsinv = mx - 1.f;
    float ax = 4.f / 5.f * dsinv;
    float bx = -1.f / 5.f * dsinv;
    float cx = 4.f / 105.f * dsinv;
    float dx = -1.f / 280.f * dsinv;
    cudaMemcpyToSymbol(c_ax, &ax, sizeof(float), 0, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_bx, &bx, sizeof(float), 0, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_cx, &cx, sizeof(float), 0, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_dx, &dx, sizeof(float), 0, cudaMemcpyHostToDevice);

    dsinv = my - 1.f;
    float ay = 4.f / 5.f * dsinv;
    float by = -1.f / 5.f * dsinv;
    float cy = 4.f / 105.f * dsinv;
    float dy = -1.f / 280.f * dsinv;
    cudaMemcpyToSymbol(c_ay, &ay, sizeof(float), 0, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_by, &by, sizeof(float), 0, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_cy, &cy, sizeof(float), 0, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_dy, &dy, sizeof(float), 0, cudaMemcpyHostToDevice);

    grid[0][0] = dim3(my / sPencils, mz, 1);
    block[0][0] = dim3(mx, sPencils, 1);

    grid[0][1] = dim3(my / lPencils, mz, 1);
    block[0][1] = dim3(mx, sPencils, 1);

    grid[1][0] = dim3(mx / sPencils, mz, 1);
    block[1][0] = dim3(sPencils, my, 1);

    grid[1][1] = dim3(mx / lPencils, mz, 1);
    block[1][1] = dim3(lPencils, my * sPencils / lPencils, 1);
}

int main()
{
    const float twopi = 8.f * (float)atan(1.0);
    const int fSize = mx * my * mz * sizeof(float);
    float *f = (float *)malloc(fSize);
    float *d_f, *d_df;
    cudaMalloc((void **)&d_f, fSize);
    cudaMalloc((void **)&d_df, fSize);
    setDerivativeParameters();

    for (int k = 0; k < mz; k++)
        for (int j = 0; j < my; j++)
            for (int i = 0; i < mx; i++)
                f[k * mx * my + j * mx + i] = cos(fx * twopi * (i - 1.f) / (mx - 1.f));
    cudaMemcpy(d_f, f, fSize, cudaMemcpyHostToDevice);
    derivative_x<<<grid[0][0], block[0][0]>>>(d_f, d_df);
    cudaDeviceSynchronize();
    derivative_x_lPencils<<<grid[0][1], block[0][1]>>>(d_f, d_df);
    cudaDeviceSynchronize();

    for (int k = 0; k < mz; k++)
        for (int j = 0; j < my; j++)
            for (int i = 0; i < mx; i++)
                f[k * mx * my + j * mx + i] = cos(fy * twopi * (j - 1.f) / (my - 1.f));
    cudaMemcpy(d_f, f, fSize, cudaMemcpyHostToDevice);
    derivative_y<<<grid[1][0], block[1][0]>>>(d_f, d_df);
    cudaDeviceSynchronize();
    derivative_y_lPencils<<<grid[1][1], block[1][1]>>>(d_f, d_df);
    cudaDeviceSynchronize();

    cudaFree(d_f);
    cudaFree(d_df);
    free(f);
    return 0;
}
