// Distilled from Learn CUDA Programming (Packt) Chapter02/02_memory_overview/03_aos_soa/aos.cu
// and soa.cu (complicatedCalculation on an array of 8-int structures vs a structure of 8 int
// arrays): IMG_SIZE 1048576, NUM_THREADS 256, grid IMG_SIZE/NUM_THREADS. The two kernels share a
// name in the originals (separate programs); here they are complicatedCalculation_AOS and
// complicatedCalculation_SOA in one program. The originals divide uninitialised device memory;
// here the fields are filled on the host (maxVal and minVal non-zero).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NUM_THREADS 256
#define IMG_SIZE 1048576

// Coefficients with Array of Structure
struct Coefficients_AOS {
    int r;
    int b;
    int g;
    int hue;
    int saturation;
    int maxVal;
    int minVal;
    int finalVal;
};

// Coefficients with Structure of Array
struct Coefficients_SOA {
    int *r;
    int *b;
    int *g;
    int *hue;
    int *saturation;
    int *maxVal;
    int *minVal;
    int *finalVal;
};

__global__ void complicatedCalculation_AOS(Coefficients_AOS *data)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    int grayscale = (data[i].r + data[i].g + data[i].b) / data[i].maxVal;
    int hue_sat = data[i].hue * data[i].saturation / data[i].minVal;
    data[i].finalVal = grayscale * hue_sat;
}

__global__ void complicatedCalculation_SOA(Coefficients_SOA data)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    int grayscale = (data.r[i] + data.g[i] + data.b[i]) / data.maxVal[i];
    int hue_sat = data.hue[i] * data.saturation[i] / data.minVal[i];
    data.finalVal[i] = grayscale * hue_sat;
}

static void fill(int *p, int n, int mod, int base)
{
    for (int i = 0; i < n; i++)
        p[i] = base + (i * 7) % mod;
}

int main()
{
    int num_blocks = IMG_SIZE / NUM_THREADS;

    // AoS
    Coefficients_AOS *h_aos = (Coefficients_AOS *)malloc(IMG_SIZE * sizeof(Coefficients_AOS));
    for (int i = 0; i < IMG_SIZE; i++) {
        h_aos[i].r = (i * 7) % 256;
        h_aos[i].b = (i * 11) % 256;
        h_aos[i].g = (i * 13) % 256;
        h_aos[i].hue = (i * 3) % 360;
        h_aos[i].saturation = i % 100;
        h_aos[i].maxVal = 1 + i % 255;
        h_aos[i].minVal = 1 + i % 17;
        h_aos[i].finalVal = 0;
    }
    Coefficients_AOS *d_x;
    cudaMalloc(&d_x, IMG_SIZE * sizeof(Coefficients_AOS));
    cudaMemcpy(d_x, h_aos, IMG_SIZE * sizeof(Coefficients_AOS), cudaMemcpyHostToDevice);
    complicatedCalculation_AOS<<<num_blocks, NUM_THREADS>>>(d_x);
    cudaDeviceSynchronize();

    // SoA
    int *h = (int *)malloc(IMG_SIZE * sizeof(int));
    Coefficients_SOA d_s;
    cudaMalloc(&d_s.r, IMG_SIZE * sizeof(int));
    cudaMalloc(&d_s.g, IMG_SIZE * sizeof(int));
    cudaMalloc(&d_s.b, IMG_SIZE * sizeof(int));
    cudaMalloc(&d_s.hue, IMG_SIZE * sizeof(int));
    cudaMalloc(&d_s.saturation, IMG_SIZE * sizeof(int));
    cudaMalloc(&d_s.maxVal, IMG_SIZE * sizeof(int));
    cudaMalloc(&d_s.minVal, IMG_SIZE * sizeof(int));
    cudaMalloc(&d_s.finalVal, IMG_SIZE * sizeof(int));
    fill(h, IMG_SIZE, 256, 0);
    cudaMemcpy(d_s.r, h, IMG_SIZE * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_s.g, h, IMG_SIZE * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_s.b, h, IMG_SIZE * sizeof(int), cudaMemcpyHostToDevice);
    fill(h, IMG_SIZE, 360, 0);
    cudaMemcpy(d_s.hue, h, IMG_SIZE * sizeof(int), cudaMemcpyHostToDevice);
    fill(h, IMG_SIZE, 100, 0);
    cudaMemcpy(d_s.saturation, h, IMG_SIZE * sizeof(int), cudaMemcpyHostToDevice);
    fill(h, IMG_SIZE, 255, 1);
    cudaMemcpy(d_s.maxVal, h, IMG_SIZE * sizeof(int), cudaMemcpyHostToDevice);
    fill(h, IMG_SIZE, 17, 1);
    cudaMemcpy(d_s.minVal, h, IMG_SIZE * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_s.finalVal, 0, IMG_SIZE * sizeof(int));
    complicatedCalculation_SOA<<<num_blocks, NUM_THREADS>>>(d_s);
    cudaDeviceSynchronize();

    cudaFree(d_x);
    cudaFree(d_s.r);
    cudaFree(d_s.g);
    cudaFree(d_s.b);
    cudaFree(d_s.hue);
    cudaFree(d_s.saturation);
    cudaFree(d_s.maxVal);
    cudaFree(d_s.minVal);
    cudaFree(d_s.finalVal);
    free(h_aos);
    free(h);
    return 0;
}
