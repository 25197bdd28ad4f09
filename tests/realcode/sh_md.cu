// Distilled from SHOC src/cuda/level1/md/MD.cu (compute_lj_force<float, float3, float4, false, ..>:
// one thread per atom, a Lennard-Jones force summed over a column-major neighbour list
// neighList[j*inum + idx] of maxNeighbors 128, the neighbour's position gathered from
// position[jidx]). Changed: the texture path is gone: useTexture = false selects the original's own
// plain global load position[jidx] (the benchmark runs both; tex1Dfetch(posTexture, ..) is the
// other), so the texReader template parameter is dropped. Kernel body otherwise unchanged. Host:
// SHOC's size class 4 (nAtom 73,728; blockSize 256, gridSize nAtom / blockSize = 288 blocks), the
// constants of MD.h (cutsq 16, lj1 1.5, lj2 2, domainEdge 20). The neighbour list is built here
// without the original's O(n^2) sort: atoms sit on a jittered 48 x 48 x 32 lattice filling the
// 20-unit domain, numbered in a scrambled order (lattice site s holds atom (s * 40507) % nAtom, so,
// as with the original's random positions, neighbours have unrelated indices), and each atom's
// neighbours are the 128 lattice sites nearest to its own (periodic in the lattice index, not in
// the positions, so some boundary pairs fail the cutoff test as pairs do in the original).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const float  cutsq        = 16.0f; // Square of cutoff distance
static const int    maxNeighbors = 128;  // Max number of nearest neighbors
static const double domainEdge   = 20.0; // Edge length of the cubic domain
static const float  lj1          = 1.5;  // LJ constants
static const float  lj2          = 2.0;

template <class T, class forceVecType, class posVecType, bool useTexture>
__global__ void compute_lj_force(forceVecType* __restrict__ force3,
                                 const posVecType* __restrict__ position,
                                 const int neighCount,
                                 const int* __restrict__ neighList,
                                 const T cutsq,
                                 const T lj1,
                                 const T lj2,
                                 const int inum)
{
    // Global ID - one thread per atom
    int idx = blockIdx.x*blockDim.x + threadIdx.x;

    // Position of this thread's atom
    posVecType ipos = position[idx];

    // Force accumulator
    forceVecType f = {0.0f, 0.0f, 0.0f};

    int j = 0;
    while (j < neighCount)
    {
        int jidx = neighList[j*inum + idx];
        posVecType jpos;
        // (useTexture is false here: the original's texture branch is not compiled)
        jpos = position[jidx];

        // Calculate distance
        T delx = ipos.x - jpos.x;
        T dely = ipos.y - jpos.y;
        T delz = ipos.z - jpos.z;
        T r2inv = delx*delx + dely*dely + delz*delz;

        // If distance is less than cutoff, calculate force
        // and add to accumulator
        if (r2inv < cutsq)
        {
            r2inv = 1.0f/r2inv;
            T r6inv = r2inv * r2inv * r2inv;
            T force = r2inv*r6inv*(lj1*r6inv - lj2);

            f.x += delx * force;
            f.y += dely * force;
            f.z += delz * force;
        }
        j++;
    }

    // store the results
    force3[idx] = f;
}

int main()
{
    typedef float T;
    typedef float3 forceVecType;
    typedef float4 posVecType;
    const int LX = 48, LY = 48, LZ = 32;
    int nAtom = LX * LY * LZ; // 73728, SHOC's size class 4
    posVecType *position = (posVecType *)malloc(nAtom * sizeof(posVecType));
    int *neighborList = (int *)malloc((size_t)nAtom * maxNeighbors * sizeof(int));

    // the 128 lattice offsets nearest to the origin (ties in a fixed scan order)
    int off[343][3], noff = 0;
    for (int r2 = 1; r2 <= 27 && noff < 343; r2++)
        for (int dz = -3; dz <= 3; dz++)
            for (int dy = -3; dy <= 3; dy++)
                for (int dx = -3; dx <= 3; dx++)
                    if (dx * dx + dy * dy + dz * dz == r2) {
                        off[noff][0] = dx; off[noff][1] = dy; off[noff][2] = dz; noff++;
                    }

    unsigned int lcg = 8650341u;
    for (int s = 0; s < nAtom; s++) {
        int x = s % LX, y = (s / LX) % LY, z = s / (LX * LY);
        int a = (int)(((long long)s * 40507) % nAtom);
        lcg = lcg * 1664525u + 1013904223u;
        double jx = ((lcg >> 8) % 1000) / 4000.0, jy = ((lcg >> 12) % 1000) / 4000.0, jz = ((lcg >> 16) % 1000) / 4000.0;
        position[a].x = (T)((x + 0.375 + jx) * domainEdge / LX);
        position[a].y = (T)((y + 0.375 + jy) * domainEdge / LY);
        position[a].z = (T)((z + 0.375 + jz) * domainEdge / LZ);
        position[a].w = 0.0f;
        for (int j = 0; j < maxNeighbors; j++) {
            int nx = (x + off[j][0] + LX) % LX, ny = (y + off[j][1] + LY) % LY, nz = (z + off[j][2] + LZ) % LZ;
            int ns = (nz * LY + ny) * LX + nx;
            neighborList[j * nAtom + a] = (int)(((long long)ns * 40507) % nAtom);
        }
    }

    forceVecType *d_force;
    posVecType *d_position;
    int *d_neighborList;
    cudaMalloc((void**)&d_force, nAtom*sizeof(forceVecType));
    cudaMalloc((void**)&d_position, nAtom*sizeof(posVecType));
    cudaMalloc((void**)&d_neighborList, (size_t)nAtom*maxNeighbors*sizeof(int));
    cudaMemcpy(d_neighborList, neighborList, (size_t)maxNeighbors*nAtom*sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_position, position, nAtom*sizeof(posVecType), cudaMemcpyHostToDevice);

    int blockSize = 256;
    int gridSize  = nAtom / blockSize;
    compute_lj_force<T, forceVecType, posVecType, false>
                    <<<gridSize, blockSize>>>
                    (d_force, d_position, maxNeighbors, d_neighborList,
                     cutsq, lj1, lj2, nAtom);
    cudaDeviceSynchronize();

    forceVecType f0;
    cudaMemcpy(&f0, d_force, sizeof(forceVecType), cudaMemcpyDeviceToHost);
    printf("force[0] = %f %f %f\n", f0.x, f0.y, f0.z);
    free(position); free(neighborList);
    cudaFree(d_force); cudaFree(d_position); cudaFree(d_neighborList);
    return 0;
}
