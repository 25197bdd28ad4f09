// Distilled from Parboil benchmarks/mri-q/src/cuda/computeQ.cu (ComputeQ_GPU, launched by
// computeQ_GPU): each thread owns one voxel (x, y, z, Qr, Qi in registers) and loops over a chunk
// of KERNEL_Q_K_ELEMS_PER_GRID k-space samples held in __constant__ memory (struct kValues
// {Kx, Ky, Kz, PhiMag}), two samples per iteration. Kernel unchanged. Host: numK = 1024 (one
// chunk, so the original's loop over QGrids makes one launch, QGridBase = 0) and
// numX = 131072 voxels (a multiple of the 256-thread block, as the kernel has no guard);
// k-space and voxel coordinates generated instead of read; ComputePhiMag_GPU is not launched
// (PhiMag is filled on the host).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define PI 3.1415926535897932384626433832795029f
#define PIx2 6.2831853071795864769252867665590058f

#define MIN(X, Y) ((X) < (Y) ? (X) : (Y))
#define K_ELEMS_PER_GRID 2048

#define KERNEL_PHI_MAG_THREADS_PER_BLOCK 512
#define KERNEL_Q_THREADS_PER_BLOCK 256
#define KERNEL_Q_K_ELEMS_PER_GRID 1024

struct kValues {
    float Kx;
    float Ky;
    float Kz;
    float PhiMag;
};

__constant__ __device__ kValues ck[KERNEL_Q_K_ELEMS_PER_GRID];

__global__ void ComputeQ_GPU(int numK, int kGlobalIndex,
                             float *x, float *y, float *z, float *Qr, float *Qi)
{
    float sX;
    float sY;
    float sZ;
    float sQr;
    float sQi;

    // Determine the element of the X arrays computed by this thread
    int xIndex = blockIdx.x * KERNEL_Q_THREADS_PER_BLOCK + threadIdx.x;

    // Read block's X values from global mem to shared mem
    sX = x[xIndex];
    sY = y[xIndex];
    sZ = z[xIndex];
    sQr = Qr[xIndex];
    sQi = Qi[xIndex];

    // Loop over all elements of K in constant mem to compute a partial value
    // for X.
    int kIndex = 0;
    if (numK % 2) {
        float expArg = PIx2 * (ck[0].Kx * sX + ck[0].Ky * sY + ck[0].Kz * sZ);
        sQr += ck[0].PhiMag * cos(expArg);
        sQi += ck[0].PhiMag * sin(expArg);
        kIndex++;
        kGlobalIndex++;
    }

    for (; (kIndex < KERNEL_Q_K_ELEMS_PER_GRID) && (kGlobalIndex < numK);
         kIndex += 2, kGlobalIndex += 2) {
        float expArg = PIx2 * (ck[kIndex].Kx * sX +
                               ck[kIndex].Ky * sY +
                               ck[kIndex].Kz * sZ);
        sQr += ck[kIndex].PhiMag * cos(expArg);
        sQi += ck[kIndex].PhiMag * sin(expArg);

        int kIndex1 = kIndex + 1;
        float expArg1 = PIx2 * (ck[kIndex1].Kx * sX +
                                ck[kIndex1].Ky * sY +
                                ck[kIndex1].Kz * sZ);
        sQr += ck[kIndex1].PhiMag * cos(expArg1);
        sQi += ck[kIndex1].PhiMag * sin(expArg1);
    }

    Qr[xIndex] = sQr;
    Qi[xIndex] = sQi;
}

void computeQ_GPU(int numK, int numX,
                  float *x_d, float *y_d, float *z_d,
                  kValues *kVals,
                  float *Qr_d, float *Qi_d)
{
    int QGrids = numK / KERNEL_Q_K_ELEMS_PER_GRID;
    if (numK % KERNEL_Q_K_ELEMS_PER_GRID)
        QGrids++;
    int QBlocks = numX / KERNEL_Q_THREADS_PER_BLOCK;
    if (numX % KERNEL_Q_THREADS_PER_BLOCK)
        QBlocks++;
    dim3 DimQBlock(KERNEL_Q_THREADS_PER_BLOCK, 1);
    dim3 DimQGrid(QBlocks, 1);

    for (int QGrid = 0; QGrid < QGrids; QGrid++) {
        // Put the tile of K values into constant mem
        int QGridBase = QGrid * KERNEL_Q_K_ELEMS_PER_GRID;
        kValues *kValsTile = kVals + QGridBase;
        int numElems = MIN(KERNEL_Q_K_ELEMS_PER_GRID, numK - QGridBase);

        cudaMemcpyToSymbol(ck, kValsTile, numElems * sizeof(kValues), 0);

        ComputeQ_GPU<<<DimQGrid, DimQBlock>>>(numK, QGridBase, x_d, y_d, z_d, Qr_d, Qi_d);
    }
}

int main()
{
    int numK = 1024, numX = 131072;
    kValues *kVals = (kValues *)malloc(numK * sizeof(kValues));
    for (int k = 0; k < numK; k++) {
        kVals[k].Kx = (float)(k % 32 - 16) / 32.0f;
        kVals[k].Ky = (float)((k / 32) % 32 - 16) / 32.0f;
        kVals[k].Kz = (float)(k % 7 - 3) / 8.0f;
        float phiR = cosf(0.01f * k), phiI = sinf(0.02f * k);
        kVals[k].PhiMag = phiR * phiR + phiI * phiI;
    }
    float *x = (float *)malloc(numX * sizeof(float));
    float *y = (float *)malloc(numX * sizeof(float));
    float *z = (float *)malloc(numX * sizeof(float));
    for (int v = 0; v < numX; v++) {
        x[v] = (float)(v % 64) / 64.0f - 0.5f;
        y[v] = (float)((v / 64) % 64) / 64.0f - 0.5f;
        z[v] = (float)(v / 4096) / 32.0f - 0.5f;
    }
    float *x_d, *y_d, *z_d, *Qr_d, *Qi_d;
    cudaMalloc((void **)&x_d, numX * sizeof(float));
    cudaMalloc((void **)&y_d, numX * sizeof(float));
    cudaMalloc((void **)&z_d, numX * sizeof(float));
    cudaMalloc((void **)&Qr_d, numX * sizeof(float));
    cudaMalloc((void **)&Qi_d, numX * sizeof(float));
    cudaMemcpy(x_d, x, numX * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y_d, y, numX * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(z_d, z, numX * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(Qr_d, 0, numX * sizeof(float));
    cudaMemset(Qi_d, 0, numX * sizeof(float));
    computeQ_GPU(numK, numX, x_d, y_d, z_d, kVals, Qr_d, Qi_d);
    cudaDeviceSynchronize();
    cudaFree(x_d);
    cudaFree(y_d);
    cudaFree(z_d);
    cudaFree(Qr_d);
    cudaFree(Qi_d);
    free(kVals);
    free(x);
    free(y);
    free(z);
    return 0;
}
