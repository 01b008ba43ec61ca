#pragma once
// Marks functions that must compile identically for the host and the device.
// Code marked TPEOPT_HD is the single implementation shared by the CPU reference
// and the CUDA kernels (docs/design.md, "Parity: CPU == CUDA"): never write a second copy.
#if defined(__CUDACC__)
#define TPEOPT_HD __host__ __device__
#define TPEOPT_HD_INLINE __host__ __device__ __forceinline__
#else
#define TPEOPT_HD
#define TPEOPT_HD_INLINE inline
#endif

// Before a TPEOPT_HD template whose callables may be host-only or device-only: nvcc checks
// each instantiation where it is used, not the template against every caller's side.
#if defined(__CUDACC__)
#define TPEOPT_HD_NO_CHECK _Pragma("nv_exec_check_disable")
#else
#define TPEOPT_HD_NO_CHECK
#endif
