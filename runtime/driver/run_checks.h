//===- run_checks.h - what a run checks: keys, inputs, outputs -*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_DRIVER_RUN_CHECKS_H
#define RINGFUSE_RUNTIME_DRIVER_RUN_CHECKS_H

#include "program_state.h"

#include <vector>

namespace ringfuse::runtime::detail {

/// Checks that every key the program switches with is given and belongs to
/// its parameter set, and records them in s.boundKeys (the driver places
/// them afterwards).
void bindKeys(RfRuntime &s, const RelinKey *relin, const GaloisKeys *galois);

/// The inputs' count, kinds, parameter sets, shapes and plaintext ranges.
void checkInputs(const RfRuntime &s, const std::vector<ProgramInput> &inputs);

/// A batch's arguments (Program::runBatch) as checkInputs checks a run's,
/// and that each holds one ciphertext or plaintext per instance, or one for
/// all; returns the count of instances.
size_t checkBatchArguments(const RfRuntime &s,
                           const std::vector<BatchArgument> &arguments);

/// What every run checks first: the inputs, and that the keys were bound.
void checkRun(RfRuntime &s, const std::vector<ProgramInput> &inputs);

/// A residue out of range would decrypt to garbage far from here.
void checkOutputs(const RfRuntime &s, const std::vector<Ciphertext> &outputs);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_RUN_CHECKS_H
