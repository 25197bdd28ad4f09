"""Small CUDA sources shared by the workflow tests (suppressions, config, formats, engine)."""

# Two uncoalesced loads (CL201 on lines 11 and 12) and an unchecked launch (CL702, line 14).
# Each block works on its own 1024 elements of `data` (no race between blocks, CL607).
KERNEL = """\
__global__ void rotate(float* data, const float* in)
{   data += blockIdx.x * 1024;
    float v[64];
    float x = data[threadIdx.x];
#pragma unroll
    for (int j = 0; j < 64; ++j) {
        x = x * 1.0001f + 0.5f;
        v[j] = x;
    }
    int k = (threadIdx.x * 5 + blockIdx.x) & 63;
    data[threadIdx.x] = v[k] + in[threadIdx.x * 4];{c11}
{n12}    data[threadIdx.x + 256] = in[threadIdx.x * 8];{c12}
}}
void host(float* d, const float* i) {{ rotate<<<64, 256>>>(d, i); }}{c14}
"""


def kernel(c11: str = "", c12: str = "", n12: str = "", c14: str = "", head: str = "") -> str:
    """KERNEL with comments appended to lines 11, 12 and 14, a line inserted before line 12
    (``n12``, which then shifts the lines below by one) and text before everything (``head``)."""
    src = KERNEL.replace("{c11}", c11).replace("{c12}", c12).replace("{n12}", n12).replace("{c14}", c14)
    return head + src.replace("{{", "{").replace("}}", "}")


# No findings at all.
CLEAN = """\
__global__ void scale(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}
"""
