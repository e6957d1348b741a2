//===- config.h - what every runtime header shares ----------------*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_CONFIG_H
#define RINGFUSE_RUNTIME_CONFIG_H

// Kernel bodies and per-element helpers are written once and compiled both for
// the host (the CPU driver, the definition of every kernel) and by nvcc for the
// GPU, which is what makes the two bit-identical.
#ifdef __CUDACC__
#define RF_HOST_DEVICE __host__ __device__
#else
#define RF_HOST_DEVICE
#endif

#endif // RINGFUSE_RUNTIME_CONFIG_H
