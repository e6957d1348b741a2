/*===- program_abi_table.h - the table a schedule calls, per word size ----===*
 *
 * Included by program_abi.h once per word size, with RF_KERNELS (the table's
 * name), RF_WORD (the buffers' words) and RF_ADDEND (key switching's addend
 * of those words) defined: RfKernels for 64-bit words, RfKernels32 for
 * 32-bit ones. No include guard, on purpose; not for other includers.
 *
 * The driver's services, then the library kernels of kernel_catalog.def, one
 * entry each (`basis`, `plan` and `key` are manifest indices).
 *
 *===----------------------------------------------------------------------===*/

typedef struct RF_KERNELS {
  RF_WORD *(*buffer)(RfRuntime *, int buffer);
  /* Moduli of a basis with their Barrett constants (for generated
   * elementwise loops and kernels, which would otherwise compute each
   * constant, a 128-bit division, per limb or per thread). */
  const RfModulus *(*moduli)(RfRuntime *, int basis);
  /* The CUDA driver's stream (a cudaStream_t) on which emitted CUDA launches
   * its generated kernels; NULL for the CPU driver, whose buffers are host
   * memory that generated loops touch directly. The program may ask once and
   * keep it: each generated kernel on it runs after every library kernel
   * called before it and before every one called after its check_launch. */
  void *(*stream)(RfRuntime *);
  /* Called by emitted CUDA right after each generated kernel launch with
   * what its own cudaGetLastError() returned (a cudaError_t; 0 is success):
   * the driver records a failure naming the kernel, as for its own kernels.
   * The program reads the error itself because it may link its own copy of
   * the CUDA runtime. A no-op for the CPU driver. */
  void (*check_launch)(RfRuntime *, const char *kernel, int cuda_error);
  /* The run's instances, for the grids of emitted CUDA's generated kernels
   * (the library kernels take them from the driver). */
  RfInstances (*instances)(RfRuntime *);
  /* The library kernels called between concurrent_begin and concurrent_end
   * touch disjoint buffers and may run at the same time (the CPU driver runs
   * them in order; the CUDA driver runs every library kernel as soon as the
   * earlier ones whose buffers it shares allow, inside a region or not). No
   * generated kernel runs inside; regions do not nest. */
  void (*concurrent_begin)(RfRuntime *);
  void (*concurrent_end)(RfRuntime *);
#define RF_KERNEL(name, Call, parameters, ...) void(*name) parameters;
#include "ringfuse/runtime/kernel_catalog.def"
} RF_KERNELS;
