// Distilled from XSBench cuda/Simulation.cu (xs_lookup_kernel_baseline: one macroscopic cross-section
// lookup per thread; the seed is fast-forwarded 2*i steps of the LCG, an energy and a material are
// drawn, then every nuclide of the material is interpolated between two NuclideGridPoints; with
// calculate_macro_xs, calculate_micro_xs, grid_search, grid_search_nuclide, pick_mat,
// LCG_random_double and fast_forward_LCG) and run_event_based_simulation_baseline's launch
// (nthreads 256, nblocks = ceil((double) in.lookups / (double) nthreads)). Device code unchanged
// (copied with the header's NuclideGridPoint / Inputs / SimulationData, the fields the kernel does
// not use dropped from SimulationData). Host: the "small" problem's 68 isotopes, the hash grid
// (`-G hash`, hash_bins 10000, built as GridInit.cu builds it, with grid_search_nuclide) instead of
// the default unionized grid (whose index grid would be 52M ints), n_gridpoints lowered from 11303
// to 4096, 1M lookups (4096 blocks) instead of 17M; Materials.cu's num_nucs / mats for the small
// problem and load_concs's LCG; the nuclide grids hold sorted, jittered energies in [0, 1) and
// LCG cross sections instead of GridInit.cu's rand()-then-qsort. The verification thrust::reduce
// is left out. All lookups and gathers are data-dependent (random energy, material and nuclide).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <stdint.h>
#include <cuda_runtime.h>

// Grid types
#define UNIONIZED 0
#define NUCLIDE 1
#define HASH 2

#define STARTING_SEED 1070

typedef struct{
	double energy;
	double total_xs;
	double elastic_xs;
	double absorbtion_xs;
	double fission_xs;
	double nu_fission_xs;
} NuclideGridPoint;

typedef struct{
	int nthreads;
	long n_isotopes;
	long n_gridpoints;
	int lookups;
	char * HM;
	int grid_type; // 0: Unionized Grid (default)    1: Nuclide Grid
	int hash_bins;
	int particles;
	int simulation_method;
	int binary_mode;
	int kernel_id;
} Inputs;

typedef struct{
	int * num_nucs;                     // Length = length_num_nucs;
	double * concs;                     // Length = length_concs
	int * mats;                         // Length = length_mats
	double * unionized_energy_array;    // Length = length_unionized_energy_array
	int * index_grid;                   // Length = length_index_grid
	NuclideGridPoint * nuclide_grid;    // Length = length_nuclide_grid
	int length_num_nucs;
	int length_concs;
	int length_mats;
	int length_unionized_energy_array;
	long length_index_grid;
	int length_nuclide_grid;
	int max_num_nucs;
	unsigned long * verification;
} SimulationData;

__device__ void calculate_micro_xs(   double p_energy, int nuc, long n_isotopes,
                           long n_gridpoints,
                           double * __restrict__ egrid, int * __restrict__ index_data,
                           NuclideGridPoint * __restrict__ nuclide_grids,
                           long idx, double * __restrict__ xs_vector, int grid_type, int hash_bins );
__device__ void calculate_macro_xs( double p_energy, int mat, long n_isotopes,
                         long n_gridpoints, int * __restrict__ num_nucs,
                         double * __restrict__ concs,
                         double * __restrict__ egrid, int * __restrict__ index_data,
                         NuclideGridPoint * __restrict__ nuclide_grids,
                         int * __restrict__ mats,
                         double * __restrict__ macro_xs_vector, int grid_type, int hash_bins, int max_num_nucs );
__device__ long grid_search( long n, double quarry, double * __restrict__ A);
__host__ __device__ long grid_search_nuclide( long n, double quarry, NuclideGridPoint * A, long low, long high);
__device__ int pick_mat( uint64_t * seed );
__host__ __device__ double LCG_random_double(uint64_t * seed);
__device__ uint64_t fast_forward_LCG(uint64_t seed, uint64_t n);

// In this kernel, we perform a single lookup with each thread. Threads within a warp
// do not really have any relation to each other, and divergence due to high nuclide count fuel
// material lookups are costly. This kernel constitutes baseline performance.
__global__ void xs_lookup_kernel_baseline(Inputs in, SimulationData GSD )
{
	// The lookup ID. Used to set the seed, and to store the verification value
	const int i = blockIdx.x *blockDim.x + threadIdx.x;

	if( i >= in.lookups )
		return;

	// Set the initial seed value
	uint64_t seed = STARTING_SEED;	

	// Forward seed to lookup index (we need 2 samples per lookup)
	seed = fast_forward_LCG(seed, 2*i);

	// Randomly pick an energy and material for the particle
	double p_energy = LCG_random_double(&seed);
	int mat         = pick_mat(&seed); 
		
	double macro_xs_vector[5] = {0};
		
	// Perform macroscopic Cross Section Lookup
	calculate_macro_xs(
			p_energy,        // Sampled neutron energy (in lethargy)
			mat,             // Sampled material type index neutron is in
			in.n_isotopes,   // Total number of isotopes in simulation
			in.n_gridpoints, // Number of gridpoints per isotope in simulation
			GSD.num_nucs,     // 1-D array with number of nuclides per material
			GSD.concs,        // Flattened 2-D array with concentration of each nuclide in each material
			GSD.unionized_energy_array, // 1-D Unionized energy array
			GSD.index_grid,   // Flattened 2-D grid holding indices into nuclide grid for each unionized energy level
			GSD.nuclide_grid, // Flattened 2-D grid holding energy levels and XS_data for all nuclides in simulation
			GSD.mats,         // Flattened 2-D array with nuclide indices defining composition of each type of material
			macro_xs_vector, // 1-D array with result of the macroscopic cross section (5 different reaction channels)
			in.grid_type,    // Lookup type (nuclide, hash, or unionized)
			in.hash_bins,    // Number of hash bins used (if using hash lookup type)
			GSD.max_num_nucs  // Maximum number of nuclides present in any material
			);

	// For verification, and to prevent the compiler from optimizing
	// all work out, we interrogate the returned macro_xs_vector array
	// to find its maximum value index, then increment the verification
	// value by that index. In this implementation, we have each thread
	// write to its thread_id index in an array, which we will reduce
	// with a thrust reduction kernel after the main simulation kernel.
	double max = -1.0;
	int max_idx = 0;
	for(int j = 0; j < 5; j++ )
	{
		if( macro_xs_vector[j] > max )
		{
			max = macro_xs_vector[j];
			max_idx = j;
		}
	}
	GSD.verification[i] = max_idx+1;
}

// Calculates the microscopic cross section for a given nuclide & energy
__device__ void calculate_micro_xs(   double p_energy, int nuc, long n_isotopes,
                           long n_gridpoints,
                           double * __restrict__ egrid, int * __restrict__ index_data,
                           NuclideGridPoint * __restrict__ nuclide_grids,
                           long idx, double * __restrict__ xs_vector, int grid_type, int hash_bins ){
	// Variables
	double f;
	NuclideGridPoint * low, * high;

	// If using only the nuclide grid, we must perform a binary search
	// to find the energy location in this particular nuclide's grid.
	if( grid_type == NUCLIDE )
	{
		// Perform binary search on the Nuclide Grid to find the index
		idx = grid_search_nuclide( n_gridpoints, p_energy, &nuclide_grids[nuc*n_gridpoints], 0, n_gridpoints-1);

		// pull ptr from nuclide grid and check to ensure that
		// we're not reading off the end of the nuclide's grid
		if( idx == n_gridpoints - 1 )
			low = &nuclide_grids[nuc*n_gridpoints + idx - 1];
		else
			low = &nuclide_grids[nuc*n_gridpoints + idx];
	}
	else if( grid_type == UNIONIZED) // Unionized Energy Grid - we already know the index, no binary search needed.
	{
		// pull ptr from energy grid and check to ensure that
		// we're not reading off the end of the nuclide's grid
		if( index_data[idx * n_isotopes + nuc] == n_gridpoints - 1 )
			low = &nuclide_grids[nuc*n_gridpoints + index_data[idx * n_isotopes + nuc] - 1];
		else
			low = &nuclide_grids[nuc*n_gridpoints + index_data[idx * n_isotopes + nuc]];
	}
	else // Hash grid
	{
		// load lower bounding index
		int u_low = index_data[idx * n_isotopes + nuc];

		// Determine higher bounding index
		int u_high;
		if( idx == hash_bins - 1 )
			u_high = n_gridpoints - 1;
		else
			u_high = index_data[(idx+1)*n_isotopes + nuc] + 1;

		// Check edge cases to make sure energy is actually between these
		// Then, if things look good, search for gridpoint in the nuclide grid
		// within the lower and higher limits we've calculated.
		double e_low  = nuclide_grids[nuc*n_gridpoints + u_low].energy;
		double e_high = nuclide_grids[nuc*n_gridpoints + u_high].energy;
		int lower;
		if( p_energy <= e_low )
			lower = 0;
		else if( p_energy >= e_high )
			lower = n_gridpoints - 1;
		else
			lower = grid_search_nuclide( n_gridpoints, p_energy, &nuclide_grids[nuc*n_gridpoints], u_low, u_high);

		if( lower == n_gridpoints - 1 )
			low = &nuclide_grids[nuc*n_gridpoints + lower - 1];
		else
			low = &nuclide_grids[nuc*n_gridpoints + lower];
	}
	
	high = low + 1;
	
	// calculate the re-useable interpolation factor
	f = (high->energy - p_energy) / (high->energy - low->energy);

	// Total XS
	xs_vector[0] = high->total_xs - f * (high->total_xs - low->total_xs);
	
	// Elastic XS
	xs_vector[1] = high->elastic_xs - f * (high->elastic_xs - low->elastic_xs);
	
	// Absorbtion XS
	xs_vector[2] = high->absorbtion_xs - f * (high->absorbtion_xs - low->absorbtion_xs);
	
	// Fission XS
	xs_vector[3] = high->fission_xs - f * (high->fission_xs - low->fission_xs);
	
	// Nu Fission XS
	xs_vector[4] = high->nu_fission_xs - f * (high->nu_fission_xs - low->nu_fission_xs);
}

// Calculates macroscopic cross section based on a given material & energy 
__device__ void calculate_macro_xs( double p_energy, int mat, long n_isotopes,
                         long n_gridpoints, int * __restrict__ num_nucs,
                         double * __restrict__ concs,
                         double * __restrict__ egrid, int * __restrict__ index_data,
                         NuclideGridPoint * __restrict__ nuclide_grids,
                         int * __restrict__ mats,
                         double * __restrict__ macro_xs_vector, int grid_type, int hash_bins, int max_num_nucs ){
	int p_nuc; // the nuclide we are looking up
	long idx = -1;	
	double conc; // the concentration of the nuclide in the material

	// cleans out macro_xs_vector
	for( int k = 0; k < 5; k++ )
		macro_xs_vector[k] = 0;

	// If we are using the unionized energy grid (UEG), we only
	// need to perform 1 binary search per macroscopic lookup.
	// If we are using the nuclide grid search, it will have to be
	// done inside of the "calculate_micro_xs" function for each different
	// nuclide in the material.
	if( grid_type == UNIONIZED )
		idx = grid_search( n_isotopes * n_gridpoints, p_energy, egrid);	
	else if( grid_type == HASH )
	{
		double du = 1.0 / hash_bins;
		idx = p_energy / du;
	}
	
	// Once we find the pointer array on the UEG, we can pull the data
	// from the respective nuclide grids, as well as the nuclide
	// concentration data for the material
	// Each nuclide from the material needs to have its micro-XS array
	// looked up & interpolatied (via calculate_micro_xs). Then, the
	// micro XS is multiplied by the concentration of that nuclide
	// in the material, and added to the total macro XS array.
	// (Independent -- though if parallelizing, must use atomic operations
	//  or otherwise control access to the xs_vector and macro_xs_vector to
	//  avoid simulataneous writing to the same data structure)
	for( int j = 0; j < num_nucs[mat]; j++ )
	{
		double xs_vector[5];
		p_nuc = mats[mat*max_num_nucs + j];
		conc = concs[mat*max_num_nucs + j];
		calculate_micro_xs( p_energy, p_nuc, n_isotopes,
		                    n_gridpoints, egrid, index_data,
		                    nuclide_grids, idx, xs_vector, grid_type, hash_bins );
		for( int k = 0; k < 5; k++ )
			macro_xs_vector[k] += xs_vector[k] * conc;
	}
}


// binary search for energy on unionized energy grid
// returns lower index
__device__ long grid_search( long n, double quarry, double * __restrict__ A)
{
	long lowerLimit = 0;
	long upperLimit = n-1;
	long examinationPoint;
	long length = upperLimit - lowerLimit;

	while( length > 1 )
	{
		examinationPoint = lowerLimit + ( length / 2 );
		
		if( A[examinationPoint] > quarry )
			upperLimit = examinationPoint;
		else
			lowerLimit = examinationPoint;
		
		length = upperLimit - lowerLimit;
	}
	
	return lowerLimit;
}

// binary search for energy on nuclide energy grid
__host__ __device__ long grid_search_nuclide( long n, double quarry, NuclideGridPoint * A, long low, long high)
{
	long lowerLimit = low;
	long upperLimit = high;
	long examinationPoint;
	long length = upperLimit - lowerLimit;

	while( length > 1 )
	{
		examinationPoint = lowerLimit + ( length / 2 );
		
		if( A[examinationPoint].energy > quarry )
			upperLimit = examinationPoint;
		else
			lowerLimit = examinationPoint;
		
		length = upperLimit - lowerLimit;
	}
	
	return lowerLimit;
}

// picks a material based on a probabilistic distribution
__device__ int pick_mat( uint64_t * seed )
{
	// I have a nice spreadsheet supporting these numbers. They are
	// the fractions (by volume) of material in the core. Not a 
	// *perfect* approximation of where XS lookups are going to occur,
	// but this will do a good job of biasing the system nonetheless.

	// Also could be argued that doing fractions by weight would be 
	// a better approximation, but volume does a good enough job for now.

	double dist[12];
	dist[0]  = 0.140;	// fuel
	dist[1]  = 0.052;	// cladding
	dist[2]  = 0.275;	// cold, borated water
	dist[3]  = 0.134;	// hot, borated water
	dist[4]  = 0.154;	// RPV
	dist[5]  = 0.064;	// Lower, radial reflector
	dist[6]  = 0.066;	// Upper reflector / top plate
	dist[7]  = 0.055;	// bottom plate
	dist[8]  = 0.008;	// bottom nozzle
	dist[9]  = 0.015;	// top nozzle
	dist[10] = 0.025;	// top of fuel assemblies
	dist[11] = 0.013;	// bottom of fuel assemblies
	
	double roll = LCG_random_double(seed);

	// makes a pick based on the distro
	for( int i = 0; i < 12; i++ )
	{
		double running = 0;
		for( int j = i; j > 0; j-- )
			running += dist[j];
		if( roll < running )
			return i;
	}

	return 0;
}

__host__ __device__ double LCG_random_double(uint64_t * seed)
{
	// LCG parameters
	const uint64_t m = 9223372036854775808ULL; // 2^63
	const uint64_t a = 2806196910506780709ULL;
	const uint64_t c = 1ULL;
	*seed = (a * (*seed) + c) % m;
	return (double) (*seed) / (double) m;
}	

__device__ uint64_t fast_forward_LCG(uint64_t seed, uint64_t n)
{
	// LCG parameters
	const uint64_t m = 9223372036854775808ULL; // 2^63
	uint64_t a = 2806196910506780709ULL;
	uint64_t c = 1ULL;

	n = n % m;

	uint64_t a_new = 1;
	uint64_t c_new = 0;

	while(n > 0) 
	{
		if(n & 1)
		{
			a_new *= a;
			c_new = c_new * a + c;
		}
		c *= (a + 1);
		a *= a;

		n >>= 1;
	}

	return (a_new * seed + c_new) % m;
}

int main()
{
	Inputs in;
	memset(&in, 0, sizeof(in));
	in.nthreads = 1;
	in.n_isotopes = 68;         // "small" H-M problem
	in.n_gridpoints = 4096;     // 11303 in the original
	in.lookups = 1 << 20;       // 17,000,000 in the original
	in.grid_type = HASH;
	in.hash_bins = 10000;
	in.particles = 0;
	in.simulation_method = 2;   // EVENT_BASED
	in.kernel_id = 0;

	SimulationData SD;
	memset(&SD, 0, sizeof(SD));

	// nuclide grids: sorted, jittered energies in [0, 1), LCG cross sections
	SD.length_nuclide_grid = in.n_isotopes * in.n_gridpoints;
	SD.nuclide_grid = (NuclideGridPoint *) malloc(SD.length_nuclide_grid * sizeof(NuclideGridPoint));
	uint64_t gseed = 42;
	for (long i = 0; i < in.n_isotopes; i++)
		for (long j = 0; j < in.n_gridpoints; j++) {
			NuclideGridPoint *p = &SD.nuclide_grid[i * in.n_gridpoints + j];
			p->energy = (j + 0.9 * LCG_random_double(&gseed)) / in.n_gridpoints;
			p->total_xs = LCG_random_double(&gseed);
			p->elastic_xs = LCG_random_double(&gseed);
			p->absorbtion_xs = LCG_random_double(&gseed);
			p->fission_xs = LCG_random_double(&gseed);
			p->nu_fission_xs = LCG_random_double(&gseed);
		}

	// hash grid, as GridInit.cu builds it
	SD.length_unionized_energy_array = 0;
	SD.length_index_grid  = in.hash_bins * in.n_isotopes;
	SD.index_grid = (int *) malloc( SD.length_index_grid * sizeof(int));
	double du = 1.0 / in.hash_bins;
	for( long e = 0; e < in.hash_bins; e++ )
	{
		double energy = e * du;
		for( long i = 0; i < in.n_isotopes; i++ )
			SD.index_grid[e * in.n_isotopes + i] = grid_search_nuclide( in.n_gridpoints, energy, SD.nuclide_grid + i * in.n_gridpoints, 0, in.n_gridpoints-1);
	}

	// materials (Materials.cu, small problem)
	int num_nucs[12] = { 34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9 };
	SD.max_num_nucs = 34;
	int mats[12][34] = {
		{ 58, 59, 60, 61, 40, 42, 43, 44, 45, 46, 1, 2, 3, 7,
		  8, 9, 10, 29, 57, 47, 48, 0, 62, 15, 33, 34, 52, 53,
		  54, 55, 56, 18, 23, 41 }, //fuel
		{ 63, 64, 65, 66, 67 }, // cladding
		{ 24, 41, 4, 5 }, // cold borated water
		{ 24, 41, 4, 5 }, // hot borated water
		{ 19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 27, 28, 29,
		  30, 31, 32, 26, 49, 50, 51, 11, 12, 13, 14, 6, 16,
		  17 }, // RPV
		{ 24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25,
		  49, 50, 51, 11, 12, 13, 14 }, // lower radial reflector
		{ 24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25,
		  49, 50, 51, 11, 12, 13, 14 }, // top reflector / plate
		{ 24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25,
		  49, 50, 51, 11, 12, 13, 14 }, // bottom plate
		{ 24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25,
		  49, 50, 51, 11, 12, 13, 14 }, // bottom nozzle
		{ 24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25,
		  49, 50, 51, 11, 12, 13, 14 }, // top nozzle
		{ 24, 41, 4, 5, 63, 64, 65, 66, 67 }, // top of FA's
		{ 24, 41, 4, 5, 63, 64, 65, 66, 67 } }; // bottom FA's
	SD.length_num_nucs = 12;
	SD.length_mats = 12 * SD.max_num_nucs;
	SD.length_concs = 12 * SD.max_num_nucs;
	double concs[12 * 34];
	uint64_t cseed = STARTING_SEED * STARTING_SEED;
	for( int i = 0; i < 12; i++ )
		for( int j = 0; j < SD.max_num_nucs; j++ )
			concs[i * SD.max_num_nucs + j] = (j < num_nucs[i]) ? LCG_random_double(&cseed) : 0.0;

	// move to the device (GridInit.cu's move_simulation_data_to_device)
	SimulationData GSD = SD;
	cudaMalloc((void **) &GSD.num_nucs, SD.length_num_nucs * sizeof(int));
	cudaMemcpy(GSD.num_nucs, num_nucs, SD.length_num_nucs * sizeof(int), cudaMemcpyHostToDevice);
	cudaMalloc((void **) &GSD.concs, SD.length_concs * sizeof(double));
	cudaMemcpy(GSD.concs, concs, SD.length_concs * sizeof(double), cudaMemcpyHostToDevice);
	cudaMalloc((void **) &GSD.mats, SD.length_mats * sizeof(int));
	cudaMemcpy(GSD.mats, mats, SD.length_mats * sizeof(int), cudaMemcpyHostToDevice);
	GSD.unionized_energy_array = NULL;
	cudaMalloc((void **) &GSD.index_grid, SD.length_index_grid * sizeof(int));
	cudaMemcpy(GSD.index_grid, SD.index_grid, SD.length_index_grid * sizeof(int), cudaMemcpyHostToDevice);
	cudaMalloc((void **) &GSD.nuclide_grid, SD.length_nuclide_grid * sizeof(NuclideGridPoint));
	cudaMemcpy(GSD.nuclide_grid, SD.nuclide_grid, SD.length_nuclide_grid * sizeof(NuclideGridPoint), cudaMemcpyHostToDevice);
	cudaMalloc((void **) &GSD.verification, in.lookups * sizeof(unsigned long));

	int nthreads = 256;
	int nblocks = ceil( (double) in.lookups / (double) nthreads);

	xs_lookup_kernel_baseline<<<nblocks, nthreads>>>( in, GSD );
	cudaDeviceSynchronize();

	unsigned long v;
	cudaMemcpy(&v, GSD.verification, sizeof(unsigned long), cudaMemcpyDeviceToHost);
	printf("verification[0] = %lu\n", v);
	free(SD.nuclide_grid); free(SD.index_grid);
	cudaFree(GSD.num_nucs); cudaFree(GSD.concs); cudaFree(GSD.mats); cudaFree(GSD.index_grid);
	cudaFree(GSD.nuclide_grid); cudaFree(GSD.verification);
	return 0;
}
