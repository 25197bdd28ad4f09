// Distilled from siboehm/SGEMM_CUDA src/kernels/6_kernel_vectorize.cuh (sgemmVectorize),
// 8_kernel_bank_extra_col.cuh (sgemmResolveBankExtraCol), 9_kernel_autotuned.cuh (sgemmAutotuned)
// and 10_kernel_warptiling.cuh (sgemmWarptiling), with runner.cu's template arguments and launch
// shapes: C = alpha A B + beta C for M = N = K = 2048. Each keeps the original's index
// expressions, loops (the `offset + rowStride <= BM` tile loads), float4 accesses and the
// transposed As store; alpha/beta epilogues as in the originals.
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void vectorize(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C)
{
    const uint cRow = blockIdx.y, cCol = blockIdx.x;
    const int threadCol = threadIdx.x % (BN / TN);
    const int threadRow = threadIdx.x / (BN / TN);
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    A += cRow * BM * K;
    B += cCol * BN;
    C += cRow * BM * N + cCol * BN;
    const uint innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const uint innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    float threadResults[TM * TN] = {0.0};
    float regM[TM] = {0.0};
    float regN[TN] = {0.0};
    for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
        float4 tmp = reinterpret_cast<float4 *>(&A[innerRowA * K + innerColA * 4])[0];
        As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
        As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
        As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
        As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;
        reinterpret_cast<float4 *>(&Bs[innerRowB * BN + innerColB * 4])[0] =
            reinterpret_cast<float4 *>(&B[innerRowB * N + innerColB * 4])[0];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
            for (uint i = 0; i < TM; ++i) regM[i] = As[dotIdx * BM + threadRow * TM + i];
            for (uint i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
            for (uint m = 0; m < TM; ++m)
                for (uint n = 0; n < TN; ++n) threadResults[m * TN + n] += regM[m] * regN[n];
        }
        __syncthreads();
    }
    for (uint m = 0; m < TM; m += 1) {
        for (uint n = 0; n < TN; n += 4) {
            float4 tmp = reinterpret_cast<float4 *>(&C[(threadRow * TM + m) * N + threadCol * TN + n])[0];
            tmp.x = alpha * threadResults[m * TN + n] + beta * tmp.x;
            tmp.y = alpha * threadResults[m * TN + n + 1] + beta * tmp.y;
            tmp.z = alpha * threadResults[m * TN + n + 2] + beta * tmp.z;
            tmp.w = alpha * threadResults[m * TN + n + 3] + beta * tmp.w;
            reinterpret_cast<float4 *>(&C[(threadRow * TM + m) * N + threadCol * TN + n])[0] = tmp;
        }
    }
}

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void extra_col(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C)
{
    const uint cRow = blockIdx.y, cCol = blockIdx.x;
    const int threadCol = threadIdx.x % (BN / TN);
    const int threadRow = threadIdx.x / (BN / TN);
    const int extraCols = 5;
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * (BN + extraCols)];
    A += cRow * BM * K;
    B += cCol * BN;
    C += cRow * BM * N + cCol * BN;
    const uint innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const uint innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    float threadResults[TM * TN] = {0.0};
    float regM[TM] = {0.0};
    float regN[TN] = {0.0};
    for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
        float4 tmp = reinterpret_cast<float4 *>(&A[innerRowA * K + innerColA * 4])[0];
        As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
        As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
        As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
        As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;
        tmp = reinterpret_cast<float4 *>(&B[innerRowB * N + innerColB * 4])[0];
        Bs[innerRowB * (BN + extraCols) + innerColB * 4 + 0] = tmp.x;
        Bs[innerRowB * (BN + extraCols) + innerColB * 4 + 1] = tmp.y;
        Bs[innerRowB * (BN + extraCols) + innerColB * 4 + 2] = tmp.z;
        Bs[innerRowB * (BN + extraCols) + innerColB * 4 + 3] = tmp.w;
        __syncthreads();
        A += BK;
        B += BK * N;
        for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
            for (uint i = 0; i < TM; ++i) regM[i] = As[dotIdx * BM + threadRow * TM + i];
            for (uint i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * (BN + extraCols) + threadCol * TN + i];
            for (uint m = 0; m < TM; ++m)
                for (uint n = 0; n < TN; ++n) threadResults[m * TN + n] += regM[m] * regN[n];
        }
        __syncthreads();
    }
    for (uint m = 0; m < TM; m += 1) {
        for (uint n = 0; n < TN; n += 4) {
            float4 tmp = reinterpret_cast<float4 *>(&C[(threadRow * TM + m) * N + threadCol * TN + n])[0];
            tmp.x = alpha * threadResults[m * TN + n] + beta * tmp.x;
            tmp.y = alpha * threadResults[m * TN + n + 1] + beta * tmp.y;
            tmp.z = alpha * threadResults[m * TN + n + 2] + beta * tmp.z;
            tmp.w = alpha * threadResults[m * TN + n + 3] + beta * tmp.w;
            reinterpret_cast<float4 *>(&C[(threadRow * TM + m) * N + threadCol * TN + n])[0] = tmp;
        }
    }
}

const int K9_NUM_THREADS = 256;

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void __launch_bounds__(K9_NUM_THREADS)
    autotuned(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C)
{
    const uint cRow = blockIdx.y, cCol = blockIdx.x;
    constexpr int WM = TM * 16;
    constexpr int WN = TN * 16;
    constexpr int WMITER = CEIL_DIV(BM, WM);
    constexpr int WNITER = CEIL_DIV(BN, WN);
    const int threadCol = threadIdx.x % (WN / TN);
    const int threadRow = threadIdx.x / (WN / TN);
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    A += cRow * BM * K;
    B += cCol * BN;
    C += cRow * BM * N + cCol * BN;
    const uint innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    constexpr uint rowStrideA = (K9_NUM_THREADS * 4) / BK;
    const uint innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    constexpr uint rowStrideB = K9_NUM_THREADS / (BN / 4);
    float threadResults[WMITER * WNITER * TM * TN] = {0.0};
    float regM[TM] = {0.0};
    float regN[TN] = {0.0};
    for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
        for (uint offset = 0; offset + rowStrideA <= BM; offset += rowStrideA) {
            float4 tmp = reinterpret_cast<float4 *>(&A[(innerRowA + offset) * K + innerColA * 4])[0];
            As[(innerColA * 4 + 0) * BM + innerRowA + offset] = tmp.x;
            As[(innerColA * 4 + 1) * BM + innerRowA + offset] = tmp.y;
            As[(innerColA * 4 + 2) * BM + innerRowA + offset] = tmp.z;
            As[(innerColA * 4 + 3) * BM + innerRowA + offset] = tmp.w;
        }
        for (uint offset = 0; offset + rowStrideB <= BK; offset += rowStrideB) {
            reinterpret_cast<float4 *>(&Bs[(innerRowB + offset) * BN + innerColB * 4])[0] =
                reinterpret_cast<float4 *>(&B[(innerRowB + offset) * N + innerColB * 4])[0];
        }
        __syncthreads();
        for (uint wmIdx = 0; wmIdx < WMITER; ++wmIdx) {
            for (uint wnIdx = 0; wnIdx < WNITER; ++wnIdx) {
                for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
                    for (uint i = 0; i < TM; ++i) regM[i] = As[dotIdx * BM + (wmIdx * WM) + threadRow * TM + i];
                    for (uint i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + (wnIdx * WN) + threadCol * TN + i];
                    for (uint m = 0; m < TM; ++m)
                        for (uint n = 0; n < TN; ++n)
                            threadResults[(wmIdx * TM + m) * (WNITER * TN) + wnIdx * TN + n] += regM[m] * regN[n];
                }
            }
        }
        __syncthreads();
        A += BK;
        B += BK * N;
    }
    for (uint wmIdx = 0; wmIdx < WMITER; ++wmIdx) {
        for (uint wnIdx = 0; wnIdx < WNITER; ++wnIdx) {
            float *C_interim = C + (wmIdx * WM * N) + (wnIdx * WN);
            for (uint m = 0; m < TM; m += 1) {
                for (uint n = 0; n < TN; n += 4) {
                    float4 tmp = reinterpret_cast<float4 *>(&C_interim[(threadRow * TM + m) * N + threadCol * TN + n])[0];
                    const int i = (wmIdx * TM + m) * (WNITER * TN) + wnIdx * TN + n;
                    tmp.x = alpha * threadResults[i + 0] + beta * tmp.x;
                    tmp.y = alpha * threadResults[i + 1] + beta * tmp.y;
                    tmp.z = alpha * threadResults[i + 2] + beta * tmp.z;
                    tmp.w = alpha * threadResults[i + 3] + beta * tmp.w;
                    reinterpret_cast<float4 *>(&C_interim[(threadRow * TM + m) * N + threadCol * TN + n])[0] = tmp;
                }
            }
        }
    }
}

const int WARPSIZE = 32;

template <const int BM, const int BN, const int BK, const int WM, const int WN, const int WNITER,
          const int TM, const int TN, const int NUM_THREADS>
__global__ void __launch_bounds__(NUM_THREADS)
    warptiling(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C)
{
    const uint cRow = blockIdx.y, cCol = blockIdx.x;
    const uint warpIdx = threadIdx.x / WARPSIZE;
    const uint warpCol = warpIdx % (BN / WN);
    const uint warpRow = warpIdx / (BN / WN);
    constexpr uint WMITER = (WM * WN) / (WARPSIZE * TM * TN * WNITER);
    constexpr uint WSUBM = WM / WMITER;
    constexpr uint WSUBN = WN / WNITER;
    const uint threadIdxInWarp = threadIdx.x % WARPSIZE;
    const uint threadColInWarp = threadIdxInWarp % (WSUBN / TN);
    const uint threadRowInWarp = threadIdxInWarp / (WSUBN / TN);
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    A += cRow * BM * K;
    B += cCol * BN;
    C += (cRow * BM + warpRow * WM) * N + cCol * BN + warpCol * WN;
    const uint innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    constexpr uint rowStrideA = (NUM_THREADS * 4) / BK;
    const uint innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    constexpr uint rowStrideB = NUM_THREADS / (BN / 4);
    float threadResults[WMITER * TM * WNITER * TN] = {0.0};
    float regM[WMITER * TM] = {0.0};
    float regN[WNITER * TN] = {0.0};
    for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
        for (uint offset = 0; offset + rowStrideA <= BM; offset += rowStrideA) {
            const float4 tmp = reinterpret_cast<const float4 *>(&A[(innerRowA + offset) * K + innerColA * 4])[0];
            As[(innerColA * 4 + 0) * BM + innerRowA + offset] = tmp.x;
            As[(innerColA * 4 + 1) * BM + innerRowA + offset] = tmp.y;
            As[(innerColA * 4 + 2) * BM + innerRowA + offset] = tmp.z;
            As[(innerColA * 4 + 3) * BM + innerRowA + offset] = tmp.w;
        }
        for (uint offset = 0; offset + rowStrideB <= BK; offset += rowStrideB) {
            reinterpret_cast<float4 *>(&Bs[(innerRowB + offset) * BN + innerColB * 4])[0] =
                reinterpret_cast<const float4 *>(&B[(innerRowB + offset) * N + innerColB * 4])[0];
        }
        __syncthreads();
        for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
            for (uint wSubRowIdx = 0; wSubRowIdx < WMITER; ++wSubRowIdx)
                for (uint i = 0; i < TM; ++i)
                    regM[wSubRowIdx * TM + i] = As[(dotIdx * BM) + warpRow * WM + wSubRowIdx * WSUBM + threadRowInWarp * TM + i];
            for (uint wSubColIdx = 0; wSubColIdx < WNITER; ++wSubColIdx)
                for (uint i = 0; i < TN; ++i)
                    regN[wSubColIdx * TN + i] = Bs[(dotIdx * BN) + warpCol * WN + wSubColIdx * WSUBN + threadColInWarp * TN + i];
            for (uint wSubRowIdx = 0; wSubRowIdx < WMITER; ++wSubRowIdx)
                for (uint wSubColIdx = 0; wSubColIdx < WNITER; ++wSubColIdx)
                    for (uint m = 0; m < TM; ++m)
                        for (uint n = 0; n < TN; ++n)
                            threadResults[(wSubRowIdx * TM + m) * (WNITER * TN) + (wSubColIdx * TN) + n] +=
                                regM[wSubRowIdx * TM + m] * regN[wSubColIdx * TN + n];
        }
        A += BK;
        B += BK * N;
        __syncthreads();
    }
    for (uint wSubRowIdx = 0; wSubRowIdx < WMITER; ++wSubRowIdx) {
        for (uint wSubColIdx = 0; wSubColIdx < WNITER; ++wSubColIdx) {
            float *C_interim = C + (wSubRowIdx * WSUBM) * N + wSubColIdx * WSUBN;
            for (uint m = 0; m < TM; m += 1) {
                for (uint n = 0; n < TN; n += 4) {
                    float4 tmp = reinterpret_cast<float4 *>(&C_interim[(threadRowInWarp * TM + m) * N + threadColInWarp * TN + n])[0];
                    const int i = (wSubRowIdx * TM + m) * (WNITER * TN) + wSubColIdx * TN + n;
                    tmp.x = alpha * threadResults[i + 0] + beta * tmp.x;
                    tmp.y = alpha * threadResults[i + 1] + beta * tmp.y;
                    tmp.z = alpha * threadResults[i + 2] + beta * tmp.z;
                    tmp.w = alpha * threadResults[i + 3] + beta * tmp.w;
                    reinterpret_cast<float4 *>(&C_interim[(threadRowInWarp * TM + m) * N + threadColInWarp * TN + n])[0] = tmp;
                }
            }
        }
    }
}

int main()
{
    const int M = 2048, N = 2048, K = 2048;
    float *A, *B, *C;
    if (cudaMalloc(&A, sizeof(float) * M * K) != cudaSuccess) return 1;
    if (cudaMalloc(&B, sizeof(float) * K * N) != cudaSuccess) return 1;
    if (cudaMalloc(&C, sizeof(float) * M * N) != cudaSuccess) return 1;
    cudaMemset(A, 0, sizeof(float) * M * K);
    cudaMemset(B, 0, sizeof(float) * K * N);
    cudaMemset(C, 0, sizeof(float) * M * N);
    float alpha = 0.5f, beta = 3.0f;
    vectorize<128, 128, 8, 8, 8><<<dim3(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), (128 * 128) / (8 * 8)>>>(M, N, K, alpha, A, B, beta, C);
    extra_col<128, 128, 8, 8, 8><<<dim3(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), (128 * 128) / (8 * 8)>>>(M, N, K, alpha, A, B, beta, C);
    autotuned<128, 128, 16, 8, 8><<<dim3(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), K9_NUM_THREADS>>>(M, N, K, alpha, A, B, beta, C);
    warptiling<128, 128, 16, 64, 64, 4, 8, 4, 128><<<dim3(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), 128>>>(M, N, K, alpha, A, B, beta, C);
    if (cudaGetLastError() != cudaSuccess) return 1;
    return cudaDeviceSynchronize() != cudaSuccess;
}
