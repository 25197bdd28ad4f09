// Distilled from mumax3 cuda/: reduce.h (the `reduce(load, op, atomicOp)` macro body: a grid-stride
// load loop into REDUCE_BLOCKSIZE = 512 shared floats, a tree down to 64, a volatile warp-synchronous
// tail, one global atomic per block), reducedot.cu (reducedot: load x1[i] * x2[i], sum, atomicAdd),
// reducemaxabs.cu (reducemaxabs: load fabs(src[i]), fmax, atomicFmaxabs from atomicf.h, an integer
// atomicMax on the float's bits), regionadds.cu (dst[i] += LUT[regions[i]]) and regiondecode.cu
// (dst[i] = LUT[regions[i]]): region lookup tables indexed by a per-cell uint8 region number.
// Kernels unchanged (the macro, sum.h and atomicf.h copied). Launch configurations as mumax's Go
// launcher builds them: reduce.go's reducecfg, grid 8 x 1 x 1 and block REDUCE_BLOCKSIZE (mumax
// launches every reduction with these 8 blocks, so this file keeps them: each thread loops 256
// times), and region.go's make1DConf(N) from util.go (block BlockSize = 512; n2 = divUp(N, 512)
// blocks laid out as divUp(n2, nx) rows of nx = divUp(n2, MaxGridSize 65535), which is why the
// region kernels rebuild a linear index from blockIdx.y * gridDim.x + blockIdx.x: here grid 1 x 2048).
// Host: N = 1M cells (a 256 x 256 x 16 mesh), the reduce destinations initialised to 0 as
// reduceBuf(0) does, 256-entry LUTs (mumax's NREGION), regions numbered by 16 x 16 x-y tiles
// ((iy / 16) * 16 + ix / 16: 16 consecutive cells share one); one launch each.
#include <cstdio>
#include <cstdlib>
#include <stdint.h>
#include <cuda_runtime.h>

// Block size for reduce kernels.
#define REDUCE_BLOCKSIZE 512

// This macro expands to a reduce kernel with arbitrary reduce operation.
// Ugly, perhaps, but arguably nicer than some 1000+ line C++ template.
// load(i): loads element i, possibly pre-processing the data
// op(a, b): reduce operation. e.g. sum
// atomicOp(a, b): atomic reduce operation in global mem.
#define reduce(load, op, atomicOp)                      \
    __shared__ float sdata[REDUCE_BLOCKSIZE];           \
    int tid = threadIdx.x;                              \
    int i =  blockIdx.x * blockDim.x + threadIdx.x;     \
                                                        \
    float mine = initVal;                               \
    int stride = gridDim.x * blockDim.x;                \
    while (i < n) {                                     \
        mine = op(mine, load(i));                       \
        i += stride;                                    \
    }                                                   \
    sdata[tid] = mine;                                  \
    __syncthreads();                                    \
                                                        \
    for (unsigned int s=blockDim.x/2; s>32; s>>=1) {    \
        if (tid < s){                                   \
            sdata[tid] = op(sdata[tid], sdata[tid + s]);\
        }                                               \
        __syncthreads();                                \
    }                                                   \
                                                        \
    if (tid < 32) {                                     \
        volatile float* smem = sdata;                   \
        smem[tid] = op(smem[tid], smem[tid + 32]);      \
        smem[tid] = op(smem[tid], smem[tid + 16]);      \
        smem[tid] = op(smem[tid], smem[tid +  8]);      \
        smem[tid] = op(smem[tid], smem[tid +  4]);      \
        smem[tid] = op(smem[tid], smem[tid +  2]);      \
        smem[tid] = op(smem[tid], smem[tid +  1]);      \
    }                                                   \
                                                        \
    if (tid == 0) { atomicOp(dst, sdata[0]); }          \
// Based on "Optimizing parallel reduction in CUDA" by Mark Harris.


inline __device__ float sum(float a, float b){
	return a + b;
}



// Atomic max of abs value.
inline __device__ void atomicFmaxabs(float* a, float b){
	b = fabs(b);
	atomicMax((int*)(a), *((int*)(&b)));
}

// reducedot.cu

#define load_prod(i) (x1[i] * x2[i])

extern "C" __global__ void
reducedot(float* __restrict__ x1, float* __restrict__ x2,
          float*__restrict__  dst, float initVal, int n) {
    reduce(load_prod, sum, atomicAdd)
}

// reducemaxabs.cu

#define load_fabs(i) fabs(src[i])

extern "C" __global__ void
reducemaxabs(float* __restrict__ src, float* __restrict__ dst, float initVal, int n) {
    reduce(load_fabs, fmax, atomicFmaxabs)
}


// add region-based scalar to dst:
// dst[i] += LUT[region[i]]
extern "C" __global__ void
regionadds(float* __restrict__ dst,
           float* __restrict__ LUT,
           uint8_t* regions, int N) {

	int i =  ( blockIdx.y*gridDim.x + blockIdx.x ) * blockDim.x + threadIdx.x;
	if (i < N) {

		uint8_t r = regions[i];
		dst[i] += LUT[r];
	}
}

// decode the regions+LUT pair into an uncompressed array
extern "C" __global__ void
regiondecode(float* __restrict__  dst, float* __restrict__ LUT, uint8_t* regions, int N) {

    int i =  ( blockIdx.y*gridDim.x + blockIdx.x ) * blockDim.x + threadIdx.x;
    if (i < N) {

        dst[i] = LUT[regions[i]];

    }
}

#define BlockSize 512
#define MaxGridSize 65535
#define divUp(x, y) ((((x) - 1) / (y)) + 1)
#define NREGION 256

int main()
{
    {
        int n = 256 * 256 * 16;
        float *h_a = (float *)malloc(n * sizeof(float));
        float *h_b = (float *)malloc(n * sizeof(float));
        for (int i = 0; i < n; i++) {
            h_a[i] = (float)(i % 100) / 100.0f - 0.5f;
            h_b[i] = (float)(i % 37) / 37.0f;
        }
        float *d_a, *d_b, *d_out0, *d_out1;
        cudaMalloc(&d_a, n * sizeof(float));
        cudaMalloc(&d_b, n * sizeof(float));
        cudaMalloc(&d_out0, sizeof(float));
        cudaMalloc(&d_out1, sizeof(float));
        cudaMemcpy(d_a, h_a, n * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(d_b, h_b, n * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemset(d_out0, 0, sizeof(float));
        cudaMemset(d_out1, 0, sizeof(float));

        // reducecfg
        dim3 grid(8, 1, 1), block(REDUCE_BLOCKSIZE, 1, 1);
        reducedot<<<grid, block>>>(d_a, d_b, d_out0, 0.0f, n);
        cudaDeviceSynchronize();
        reducemaxabs<<<grid, block>>>(d_a, d_out1, 0.0f, n);
        cudaDeviceSynchronize();

        float r0, r1;
        cudaMemcpy(&r0, d_out0, sizeof(float), cudaMemcpyDeviceToHost);
        cudaMemcpy(&r1, d_out1, sizeof(float), cudaMemcpyDeviceToHost);
        printf("dot = %f, maxabs = %f\n", r0, r1);
        free(h_a); free(h_b);
        cudaFree(d_a); cudaFree(d_b); cudaFree(d_out0); cudaFree(d_out1);
    }
    {
        int Nx = 256, Ny = 256, Nz = 16;
        int N = Nx * Ny * Nz;
        uint8_t *h_regions = (uint8_t *)malloc(N);
        float *h_lut = (float *)malloc(NREGION * sizeof(float));
        for (int iz = 0; iz < Nz; iz++)
            for (int iy = 0; iy < Ny; iy++)
                for (int ix = 0; ix < Nx; ix++)
                    h_regions[(iz * Ny + iy) * Nx + ix] = (uint8_t)((iy / 16) * 16 + ix / 16);
        for (int r = 0; r < NREGION; r++)
            h_lut[r] = 0.5f + 0.01f * r;

        float *d_dst0, *d_dst1, *d_lut;
        uint8_t *d_regions;
        cudaMalloc(&d_dst0, N * sizeof(float));
        cudaMalloc(&d_dst1, N * sizeof(float));
        cudaMalloc(&d_lut, NREGION * sizeof(float));
        cudaMalloc(&d_regions, N);
        cudaMemset(d_dst0, 0, N * sizeof(float));
        cudaMemcpy(d_lut, h_lut, NREGION * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(d_regions, h_regions, N, cudaMemcpyHostToDevice);

        // make1DConf(N)
        dim3 bl(BlockSize, 1, 1);
        int n2 = divUp(N, BlockSize); // N2 blocks left
        int nx = divUp(n2, MaxGridSize);
        int ny = divUp(n2, nx);
        dim3 gr(nx, ny, 1);

        regionadds<<<gr, bl>>>(d_dst0, d_lut, d_regions, N);
        cudaDeviceSynchronize();
        regiondecode<<<gr, bl>>>(d_dst1, d_lut, d_regions, N);
        cudaDeviceSynchronize();

        float r;
        cudaMemcpy(&r, d_dst1, sizeof(float), cudaMemcpyDeviceToHost);
        printf("dst[0] = %f\n", r);
        free(h_regions); free(h_lut);
        cudaFree(d_dst0); cudaFree(d_dst1); cudaFree(d_lut); cudaFree(d_regions);
    }
    return 0;
}
