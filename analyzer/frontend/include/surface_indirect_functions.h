/* cudalint: surface-object reads and writes (surf2Dread<T>, surf2Dwrite, ...). */
#ifndef __SURFACE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__
#include "host_defines.h"
#include "driver_types.h"
#ifdef __cplusplus
#define __CUDALINT_BM enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap
template <class T> __device__ T surf1Dread(cudaSurfaceObject_t surfObject, int x, __CUDALINT_BM);
template <class T> __device__ void surf1Dread(T *ptr, cudaSurfaceObject_t surfObject, int x, __CUDALINT_BM);
template <class T> __device__ T surf2Dread(cudaSurfaceObject_t surfObject, int x, int y, __CUDALINT_BM);
template <class T> __device__ void surf2Dread(T *ptr, cudaSurfaceObject_t surfObject, int x, int y, __CUDALINT_BM);
template <class T> __device__ T surf3Dread(cudaSurfaceObject_t surfObject, int x, int y, int z, __CUDALINT_BM);
template <class T> __device__ void surf3Dread(T *ptr, cudaSurfaceObject_t surfObject, int x, int y, int z, __CUDALINT_BM);
template <class T> __device__ T surf1DLayeredread(cudaSurfaceObject_t surfObject, int x, int layer, __CUDALINT_BM);
template <class T> __device__ T surf2DLayeredread(cudaSurfaceObject_t surfObject, int x, int y, int layer, __CUDALINT_BM);
template <class T> __device__ T surfCubemapread(cudaSurfaceObject_t surfObject, int x, int y, int face, __CUDALINT_BM);
template <class T> __device__ void surf1Dwrite(T val, cudaSurfaceObject_t surfObject, int x, __CUDALINT_BM);
template <class T> __device__ void surf2Dwrite(T val, cudaSurfaceObject_t surfObject, int x, int y, __CUDALINT_BM);
template <class T> __device__ void surf3Dwrite(T val, cudaSurfaceObject_t surfObject, int x, int y, int z, __CUDALINT_BM);
template <class T> __device__ void surf1DLayeredwrite(T val, cudaSurfaceObject_t surfObject, int x, int layer, __CUDALINT_BM);
template <class T> __device__ void surf2DLayeredwrite(T val, cudaSurfaceObject_t surfObject, int x, int y, int layer, __CUDALINT_BM);
template <class T> __device__ void surfCubemapwrite(T val, cudaSurfaceObject_t surfObject, int x, int y, int face, __CUDALINT_BM);
#undef __CUDALINT_BM
#endif
#endif
