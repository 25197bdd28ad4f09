// Distilled from Parboil benchmarks/sgemm/src/cuda/sgemm_kernel.cu (mysgemmNT, launched by
// regtileSgemm): C = alpha * A * B^T + beta * C, column-major, register tiling with TILE_N 16,
// TILE_TB_HEIGHT 8, TILE_M 128; grid (m/TILE_M, n/TILE_N), block (TILE_N, TILE_TB_HEIGHT).
// Kernel unchanged; the host's file reading and timers are dropped, the matrices are
// m = n = k = 1024 (lda = ldc = m, ldb = n) with a deterministic fill.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE_N 16
#define TILE_TB_HEIGHT 8
#define TILE_M (TILE_N * TILE_TB_HEIGHT)

__global__ void mysgemmNT(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k, float alpha, float beta)
{
    // Partial results
    float c[TILE_N];
    for (int i = 0; i < TILE_N; i++)
        c[i] = 0.0f;
    int mid = threadIdx.y * blockDim.x + threadIdx.x; // flattened id
    int m = blockIdx.x * TILE_M + mid;
    int n = blockIdx.y * TILE_N + threadIdx.x;
    __shared__ float b_s[TILE_TB_HEIGHT][TILE_N];
    for (int i = 0; i < k; i += TILE_TB_HEIGHT) {
        float a;
        b_s[threadIdx.y][threadIdx.x] = B[n + (i + threadIdx.y) * ldb];
        __syncthreads();
        for (int j = 0; j < TILE_TB_HEIGHT; j++) {
            a = A[m + (i + j) * lda];
            for (int kk = 0; kk < TILE_N; kk++)
                c[kk] += a * b_s[j][kk];
        }
        __syncthreads();
    }
    int t = ldc * blockIdx.y * TILE_N + m;
    for (int i = 0; i < TILE_N; i++) {
        C[t + i * ldc] = C[t + i * ldc] * beta + alpha * c[i];
    }
}

void regtileSgemm(char transa, char transb, int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if ((transa != 'N') && (transa != 'n'))
        return;
    if ((transb != 'T') && (transb != 't'))
        return;
    if ((m % TILE_M) || (n % TILE_N))
        fprintf(stderr, "unsupported size of matrix\n");
    dim3 grid(m / TILE_M, n / TILE_N), threads(TILE_N, TILE_TB_HEIGHT);
    mysgemmNT<<<grid, threads>>>(A, lda, B, ldb, C, ldc, k, alpha, beta);
}

int main()
{
    int matArow = 1024, matAcol = 1024; // A: m x k, column-major
    int matBrow = 1024, matBcol = 1024; // B^T: k x n (the original reads it transposed)
    size_t A_sz = (size_t)matArow * matAcol, B_sz = (size_t)matBrow * matBcol, C_sz = (size_t)matArow * matBcol;
    float *hA = (float *)malloc(A_sz * sizeof(float));
    float *hB = (float *)malloc(B_sz * sizeof(float));
    float *hC = (float *)malloc(C_sz * sizeof(float));
    for (size_t i = 0; i < A_sz; i++) hA[i] = (float)(i % 17) * 0.125f;
    for (size_t i = 0; i < B_sz; i++) hB[i] = (float)(i % 13) * 0.25f;
    for (size_t i = 0; i < C_sz; i++) hC[i] = 0.0f;
    float *dA, *dB, *dC;
    cudaMalloc((void **)&dA, A_sz * sizeof(float));
    cudaMalloc((void **)&dB, B_sz * sizeof(float));
    cudaMalloc((void **)&dC, C_sz * sizeof(float));
    cudaMemcpy(dA, hA, A_sz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, B_sz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, C_sz * sizeof(float), cudaMemcpyHostToDevice);
    regtileSgemm('N', 'T', matArow, matBcol, matAcol, 1.0f, dA, matArow, dB, matBcol, 0.0f, dC, matArow);
    cudaDeviceSynchronize();
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(hA);
    free(hB);
    free(hC);
    return 0;
}
