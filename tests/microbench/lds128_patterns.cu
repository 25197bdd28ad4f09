// 128-bit shared loads, one LDS.128 per thread of one warp, at patterns of float4 indices.
// Measured with Nsight Compute on an H200 (tests/test_banks.py::LDS128_MEASURED): nvcc -O3 -arch=sm_90 and
// ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum
#include <cstdio>
#define K(name, IDX)                                                                        \
__global__ void name(float4 *out) {                                                         \
    __shared__ float4 s[256];                                                               \
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s[i] = make_float4(i, i, i, i);     \
    __syncthreads();                                                                        \
    int lane = threadIdx.x;                                                                 \
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[(IDX)]);                             \
    float4 v;                                                                               \
    asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];"                                    \
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(a));                    \
    out[threadIdx.x] = v;                                                                   \
}
K(p_bcast, 0)
K(p_div16, lane / 16)
K(p_div4_x2, (lane / 4) * 2)
K(p_mod4, lane % 4)
K(p_mod16_x2, (lane % 16) * 2)
K(p_contig, lane)
K(p_mod8, lane % 8)
K(p_div8, lane / 8)
K(p_x2, lane * 2)
K(p_div2, lane / 2)
K(p_mod2, lane % 2)
K(p_x8, (lane * 8) % 256)
K(p_div4, lane / 4)
K(p_rev_pairs, lane ^ 1)
int main() {
    float4 *o; cudaMalloc(&o, 32 * sizeof(float4));
    p_bcast<<<1, 32>>>(o); p_div16<<<1, 32>>>(o); p_div4_x2<<<1, 32>>>(o); p_mod4<<<1, 32>>>(o);
    p_mod16_x2<<<1, 32>>>(o); p_contig<<<1, 32>>>(o); p_mod8<<<1, 32>>>(o); p_div8<<<1, 32>>>(o);
    p_x2<<<1, 32>>>(o); p_div2<<<1, 32>>>(o); p_mod2<<<1, 32>>>(o); p_x8<<<1, 32>>>(o);
    p_div4<<<1, 32>>>(o); p_rev_pairs<<<1, 32>>>(o);
    cudaDeviceSynchronize(); printf("done\n"); return 0;
}
