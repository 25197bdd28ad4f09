// Distilled from SHOC src/cuda/level1/stencil2d/CUDAStencilKernel.cu (StencilKernel<float>: a 9-point
// stencil; each block of (1, lCols) threads owns an nStripItems x lCols strip and copies it with a
// 1-wide halo into dynamic shared memory, the first and last thread of the block loading the left
// and right halo columns) and CUDAStencil<T>::operator() (dimGrid(gRows / lRows, gCols / lCols),
// dimBlock(1, lCols), localDataSize dynamic bytes). Kernel and helpers unchanged (the double
// specialisation of SharedMemory is left out). Host: SHOC's default lsize 8,256, Matrix2D's pad 16,
// the default weights, a 1024 x 1024 interior (1026 x 1026 with the halo, rows padded to 1040
// floats): 128 x 4 = 512 blocks of 256 threads; one launch instead of the iteration loop (the
// halo copies with cudaMemcpy2D become one full copy of the input into both buffers).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template<typename T>
struct SharedMemory
{
    // Should never be instantiated.
    // We enforce this at compile time.
    __device__ T* GetPointer( void )
    {
        extern __device__ void error( void );
        error();
        return NULL;
    }
};

template<>
struct SharedMemory<float>
{
    __device__ float* GetPointer( void )
    {
        extern __shared__ float sh_float[];
        return sh_float;
    }
};

__device__
int
ToGlobalRow( int gidRow, int lszRow, int lidRow )
{
    return gidRow * lszRow + lidRow;
}

__device__
int
ToGlobalCol( int gidCol, int lszCol, int lidCol )
{
    return gidCol * lszCol + lidCol;
}

__device__
int
ToFlatIdx( int row, int col, int rowWidth )
{
    // assumes input coordinates and dimensions are logical (without halo)
    // and a halo width of 1
    return (row+1)*(rowWidth + 2) + (col+1);
}

template<class T>
__global__
void
StencilKernel( T* data,
                T* newData,
                int alignment,
                int nStripItems,
                T wCenter,
                T wCardinal,
                T wDiagonal )
{
    // determine our location in the coordinate system
    // see the comment in operator() at the definition of the dimGrid
    // and dimBlock dim3s to understand why .x == row and .y == column.
    int gidRow = blockIdx.x;
    int gidCol = blockIdx.y;
    // int gszRow = gridDim.x;
    int gszCol = gridDim.y;
    int lidRow = threadIdx.x;
    int lidCol = threadIdx.y;
    int lszRow = nStripItems;
    int lszCol = blockDim.y;

    // determine our logical global data coordinates (without halo)
    int gRow = ToGlobalRow( gidRow, lszRow, lidRow );
    int gCol = ToGlobalCol( gidCol, lszCol, lidCol );

    // determine pitch of rows (without halo)
    int nCols = gszCol * lszCol + 2;     // assume halo is there for computing padding
    int nPaddedCols = nCols + (((nCols % alignment) == 0) ? 0 : (alignment - (nCols % alignment)));
    int gRowWidth = nPaddedCols - 2;    // remove the halo

    // Copy my global data item to a shared local buffer.
    // That local buffer is passed to us.
    // We assume it is large enough to hold all the data computed by
    // our thread block, plus a halo of width 1.
    SharedMemory<T> shobj;
    T* sh = shobj.GetPointer();
    int lRowWidth = lszCol;
    for( int i = 0; i < (lszRow + 2); i++ )
    {
        int lidx = ToFlatIdx( lidRow - 1 + i, lidCol, lRowWidth );
        int gidx = ToFlatIdx( gRow - 1 + i, gCol, gRowWidth );
        sh[lidx] = data[gidx];
    }

    // Copy the "left" and "right" halo rows into our local memory buffer.
    // Only two threads are involved (first column and last column).
    if( lidCol == 0 )
    {
        for( int i = 0; i < (lszRow + 2); i++ )
        {
            int lidx = ToFlatIdx(lidRow - 1 + i, lidCol - 1, lRowWidth );
            int gidx = ToFlatIdx(gRow - 1 + i, gCol - 1, gRowWidth );
            sh[lidx] = data[gidx];
        }
    }
    else if( lidCol == (lszCol - 1) )
    {
        for( int i = 0; i < (lszRow + 2); i++ )
        {
            int lidx = ToFlatIdx(lidRow - 1 + i, lidCol + 1, lRowWidth );
            int gidx = ToFlatIdx(gRow - 1 + i, gCol + 1, gRowWidth );
            sh[lidx] = data[gidx];
        }
    }

    // let all those loads finish
    __syncthreads();

    // do my part of the smoothing operation
    for( int i = 0; i < lszRow; i++ )
    {
        int cidx  = ToFlatIdx( lidRow     + i, lidCol    , lRowWidth );
        int nidx  = ToFlatIdx( lidRow - 1 + i, lidCol    , lRowWidth );
        int sidx  = ToFlatIdx( lidRow + 1 + i, lidCol    , lRowWidth );
        int eidx  = ToFlatIdx( lidRow     + i, lidCol + 1, lRowWidth );
        int widx  = ToFlatIdx( lidRow     + i, lidCol - 1, lRowWidth );
        int neidx = ToFlatIdx( lidRow - 1 + i, lidCol + 1, lRowWidth );
        int seidx = ToFlatIdx( lidRow + 1 + i, lidCol + 1, lRowWidth );
        int nwidx = ToFlatIdx( lidRow - 1 + i, lidCol - 1, lRowWidth );
        int swidx = ToFlatIdx( lidRow + 1 + i, lidCol - 1, lRowWidth );

        T centerValue = sh[cidx];
        T cardinalValueSum = sh[nidx] + sh[sidx] + sh[eidx] + sh[widx];
        T diagonalValueSum = sh[neidx] + sh[seidx] + sh[nwidx] + sh[swidx];
        newData[ToFlatIdx(gRow + i, gCol, gRowWidth)] = wCenter * centerValue +
                wCardinal * cardinalValueSum +
                wDiagonal * diagonalValueSum;
    }
}

int main()
{
    typedef float T;
    const size_t lRows = 8, lCols = 256;     // SHOC's default lsize
    const size_t pad = 16;                   // Matrix2D's default pad
    size_t gRows = 1024, gCols = 1024;       // interior, without the halo
    size_t nRows = gRows + 2, nColumns = gCols + 2;
    size_t nPaddedColumns = nColumns + ((nColumns % pad == 0) ? 0 : (pad - (nColumns % pad)));
    size_t matDataSize = sizeof(T) * nRows * nPaddedColumns;
    T *h = (T *)malloc(matDataSize);
    for (size_t i = 0; i < nRows * nPaddedColumns; i++)
        h[i] = (T)((i * 7919) % 1000) / 1000.0f;

    dim3 dimGrid( gRows / lRows, gCols / lCols );
    dim3 dimBlock( 1, lCols );
    size_t localDataSize = sizeof(T) * (lRows + 2) * (lCols + 2);

    T* da = NULL;
    T* db = NULL;
    cudaMalloc( (void**)&da, matDataSize );
    cudaMalloc( (void**)&db, matDataSize );
    cudaMemcpy( da, h, matDataSize, cudaMemcpyHostToDevice );
    cudaMemcpy( db, h, matDataSize, cudaMemcpyHostToDevice );

    StencilKernel<T><<<dimGrid, dimBlock, localDataSize>>>( da, db, pad, lRows,
        0.25f, 0.15f, 0.05f );
    cudaDeviceSynchronize();

    cudaMemcpy( h, db, matDataSize, cudaMemcpyDeviceToHost );
    printf("newData[1041] = %f\n", h[nPaddedColumns + 1]);
    free(h);
    cudaFree(da); cudaFree(db);
    return 0;
}
