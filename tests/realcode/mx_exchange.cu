// Distilled from mumax3 cuda/exchange.cu (addexchange: the 6-neighbour exchange field on a 3D grid of
// cells; each neighbour's magnetisation is loaded, missing neighbours replaced by the centre, and the
// exchange stiffness of the region pair read from the symmetric lookup table aLUT2d[symidx(r0, r)]),
// with the macros and inline functions it includes (stencil.h, exchange.h, float3.h, amul.h) and the
// launch configuration mumax's Go launcher uses (cuda/util.go make3DConf: block TileX x TileY x 1 =
// 32 x 32 x 1, grid divUp(Nx, 32) x divUp(Ny, 32) x Nz; exchange.go launches it with that cfg).
// Kernel unchanged. Host: a 256 x 256 x 16 mesh (grid 8 x 8 x 16 = 1024 blocks of 1024 threads),
// no periodic boundaries (PBC 0), Ms_ given as an array (Ms_mul 1), 4 regions laid out in
// quadrants of the x-y plane (mumax's LUT holds 256 regions: 256 * 257 / 2 entries), unit
// magnetisation everywhere except an empty (zero) 16 x 16 hole, whose cells return early and whose
// neighbours take the `is0(m_)` replacement.
#include <cstdio>
#include <cstdlib>
#include <stdint.h>
#include <cuda_runtime.h>

// stencil.h
// 3D array indexing
#define index(ix,iy,iz,Nx,Ny,Nz) ( ( (iz)*(Ny) + (iy) ) * (Nx) + (ix) )
#define idx(ix,iy,iz) ( index((ix),(iy),(iz),(Nx),(Ny),(Nz)) )
// modulo used for PBC wrap around
#define MOD(n, M) ( (( (n) % (M) ) + (M) ) % (M)  )
// have PBC in x, y or z?
#define PBCx (PBC & 1)
#define PBCy (PBC & 2)
#define PBCz (PBC & 4)
// clamp or wrap index at boundary, depending on PBC
// hclamp*: clamps on upper side (index+1)
// lclamp*: clamps on lower side (index-1)
// *clampx: clamps along x
// ...
#define hclampx(ix) (PBCx? MOD(ix, Nx) : min((ix), Nx-1))
#define lclampx(ix) (PBCx? MOD(ix, Nx) : max((ix), 0))
#define hclampy(iy) (PBCy? MOD(iy, Ny) : min((iy), Ny-1))
#define lclampy(iy) (PBCy? MOD(iy, Ny) : max((iy), 0))
#define hclampz(iz) (PBCz? MOD(iz, Nz) : min((iz), Nz-1))
#define lclampz(iz) (PBCz? MOD(iz, Nz) : max((iz), 0))

// exchange.h
// indexing in symmetric matrix
#define symidx(i, j) ( (j<=i)? ( (((i)*((i)+1)) /2 )+(j) )  :  ( (((j)*((j)+1)) /2 )+(i) ) )

// float3.h
inline __device__ float3 operator+(float3 a, float3 b) {
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}

inline __device__ void operator+=(float3 &a, float3 b) {
    a.x += b.x; 
	a.y += b.y; 
	a.z += b.z;
}

inline __device__ float3 operator-(float3 a, float3 b) {
    return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}

inline __device__ float3 operator-(float3 a) {
    return make_float3(-a.x, -a.y, -a.z);
}

inline __device__ void operator-=(float3 &a, float3 b) {
    a.x -= b.x; 
	a.y -= b.y; 
	a.z -= b.z;
}

inline __device__ float3 operator*(float s, float3 a) {
    return make_float3(s*a.x, s*a.y, s*a.z);
}

inline __device__ float3 operator*(float3 a, float s) {
    return make_float3(s*a.x, s*a.y, s*a.z);
}

inline __device__ void operator*=(float3 &a, float s) {
    a.x *= s; 
	a.y *= s; 
	a.z *= s;
}

// dot product
inline __device__ float dot(float3 a, float3 b) { 
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

// cross product
inline __device__ float3 cross(float3 a, float3 b) { 
	return make_float3( a.y*b.z - a.z*b.y,  a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x); 
}

// length of the 3-components vector
inline __device__ float len(float3 a) {
	return sqrtf(dot(a,a));
}

// returns a normalized copy of the 3-components vector
inline __device__ float3 normalized(float3 a){
    float veclen = (len(a) != 0.0f) ? 1.0f / len(a) : 0.0f;
	return veclen * a;
}

// square
inline __device__ float pow2(float x){
	return x * x;
}


// pow(x, 3)
inline __device__ float pow3(float x){
	return x * x * x;
}


// pow(x, 4)
inline __device__ float pow4(float x){
	float s = x*x;
	return s*s;
}

#define is0(m) ( dot(m, m) == 0.0f )


// amul.h
inline __device__ float amul(float *arr, float mul, int i) {
    return (arr == NULL)? (mul): (mul * arr[i]);
}

// Returns m * a[i], or m when a == NULL;
inline __device__ float3 vmul(float *ax, float *ay, float *az,
                              float mx, float my, float mz, int i) {
    return make_float3(amul(ax, mx, i),
                       amul(ay, my, i),
                       amul(az, mz, i));
}

// Returns 1/Msat, or 0 when Msat == 0.
inline __device__ float inv_Msat(float *Ms_, float Ms_mul, int i) {
    float ms = amul(Ms_, Ms_mul, i);
    if (ms == 0.0f) {
        return 0.0f;
    } else {
        return 1.0f / ms;
    }
}


// See exchange.go for more details.
extern "C" __global__ void
addexchange(float* __restrict__ Bx, float* __restrict__ By, float* __restrict__ Bz,
            float* __restrict__ mx, float* __restrict__ my, float* __restrict__ mz,
            float* __restrict__ Ms_, float Ms_mul,
            float* __restrict__ aLUT2d, uint8_t* __restrict__ regions,
            float wx, float wy, float wz, int Nx, int Ny, int Nz, uint8_t PBC) {

    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    int iz = blockIdx.z * blockDim.z + threadIdx.z;

    if (ix >= Nx || iy >= Ny || iz >= Nz) {
        return;
    }

    // central cell
    int I = idx(ix, iy, iz);
    float3 m0 = make_float3(mx[I], my[I], mz[I]);

    if (is0(m0)) {
        return;
    }

    uint8_t r0 = regions[I];
    float3 B  = make_float3(0.0,0.0,0.0);

    int i_;    // neighbor index
    float3 m_; // neighbor mag
    float a__; // inter-cell exchange stiffness

    // left neighbor
    i_  = idx(lclampx(ix-1), iy, iz);           // clamps or wraps index according to PBC
    m_  = make_float3(mx[i_], my[i_], mz[i_]);  // load m
    m_  = ( is0(m_)? m0: m_ );                  // replace missing non-boundary neighbor
    a__ = aLUT2d[symidx(r0, regions[i_])];
    B += wx * a__ *(m_ - m0);

    // right neighbor
    i_  = idx(hclampx(ix+1), iy, iz);
    m_  = make_float3(mx[i_], my[i_], mz[i_]);
    m_  = ( is0(m_)? m0: m_ );
    a__ = aLUT2d[symidx(r0, regions[i_])];
    B += wx * a__ *(m_ - m0);

    // back neighbor
    i_  = idx(ix, lclampy(iy-1), iz);
    m_  = make_float3(mx[i_], my[i_], mz[i_]);
    m_  = ( is0(m_)? m0: m_ );
    a__ = aLUT2d[symidx(r0, regions[i_])];
    B += wy * a__ *(m_ - m0);

    // front neighbor
    i_  = idx(ix, hclampy(iy+1), iz);
    m_  = make_float3(mx[i_], my[i_], mz[i_]);
    m_  = ( is0(m_)? m0: m_ );
    a__ = aLUT2d[symidx(r0, regions[i_])];
    B += wy * a__ *(m_ - m0);

    // only take vertical derivative for 3D sim
    if (Nz != 1) {
        // bottom neighbor
        i_  = idx(ix, iy, lclampz(iz-1));
        m_  = make_float3(mx[i_], my[i_], mz[i_]);
        m_  = ( is0(m_)? m0: m_ );
        a__ = aLUT2d[symidx(r0, regions[i_])];
        B += wz * a__ *(m_ - m0);

        // top neighbor
        i_  = idx(ix, iy, hclampz(iz+1));
        m_  = make_float3(mx[i_], my[i_], mz[i_]);
        m_  = ( is0(m_)? m0: m_ );
        a__ = aLUT2d[symidx(r0, regions[i_])];
        B += wz * a__ *(m_ - m0);
    }

    float invMs = inv_Msat(Ms_, Ms_mul, I);
    Bx[I] += B.x*invMs;
    By[I] += B.y*invMs;
    Bz[I] += B.z*invMs;
}


#define TileX 32
#define TileY 32
#define divUp(x, y) ((((x) - 1) / (y)) + 1)
#define NREGION 256

int main()
{
    int Nx = 256, Ny = 256, Nz = 16;
    int N = Nx * Ny * Nz;
    float *h_m = (float *)malloc(3 * N * sizeof(float));
    uint8_t *h_regions = (uint8_t *)malloc(N);
    float *h_Ms = (float *)malloc(N * sizeof(float));
    int nlut = NREGION * (NREGION + 1) / 2;
    float *h_lut = (float *)malloc(nlut * sizeof(float));
    for (int iz = 0; iz < Nz; iz++)
        for (int iy = 0; iy < Ny; iy++)
            for (int ix = 0; ix < Nx; ix++) {
                int I = (iz * Ny + iy) * Nx + ix;
                bool hole = (ix >= 120 && ix < 136 && iy >= 120 && iy < 136);
                h_m[I] = hole ? 0.0f : 0.6f;
                h_m[N + I] = hole ? 0.0f : 0.8f;
                h_m[2 * N + I] = 0.0f;
                h_regions[I] = (uint8_t)((ix >= Nx / 2 ? 1 : 0) + (iy >= Ny / 2 ? 2 : 0));
                h_Ms[I] = 8.0e5f;
            }
    for (int k = 0; k < nlut; k++)
        h_lut[k] = 1.3e-11f * (1.0f + 0.01f * (k % 7));

    float *d_B, *d_m, *d_Ms, *d_lut;
    uint8_t *d_regions;
    cudaMalloc(&d_B, 3 * N * sizeof(float));
    cudaMalloc(&d_m, 3 * N * sizeof(float));
    cudaMalloc(&d_Ms, N * sizeof(float));
    cudaMalloc(&d_lut, nlut * sizeof(float));
    cudaMalloc(&d_regions, N);
    cudaMemset(d_B, 0, 3 * N * sizeof(float));
    cudaMemcpy(d_m, h_m, 3 * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_Ms, h_Ms, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_lut, h_lut, nlut * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_regions, h_regions, N, cudaMemcpyHostToDevice);

    // make3DConf(N)
    dim3 bl(TileX, TileY, 1);
    int nx = divUp(Nx, TileX);
    int ny = divUp(Ny, TileY);
    dim3 gr(nx, ny, Nz);

    float wx = 2.0f / (4e-9f * 4e-9f), wy = wx, wz = 2.0f / (2e-9f * 2e-9f);
    addexchange<<<gr, bl>>>(d_B, d_B + N, d_B + 2 * N, d_m, d_m + N, d_m + 2 * N,
                            d_Ms, 1.0f, d_lut, d_regions, wx, wy, wz, Nx, Ny, Nz, 0);
    cudaDeviceSynchronize();

    float b;
    cudaMemcpy(&b, d_B, sizeof(float), cudaMemcpyDeviceToHost);
    printf("Bx[0] = %g\n", b);
    free(h_m); free(h_regions); free(h_Ms); free(h_lut);
    cudaFree(d_B); cudaFree(d_m); cudaFree(d_Ms); cudaFree(d_lut); cudaFree(d_regions);
    return 0;
}
