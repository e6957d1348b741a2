// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=hps,bgv --verify-diagnostics
// The pipeline resolves its option here too: a name that is no #bfv.variant
// is refused there, with the names there are.
// RUN: not ringfuse-opt %s --ringfuse-pipeline=variant=fast 2>&1 | FileCheck %s
// CHECK: bfv-choose-variant: unknown variant 'fast' (hps, lhps, chps or behz)

// expected-error@+1 {{bfv-choose-variant: unknown variant 'bgv' (hps, lhps, chps or behz)}}
module {
  func.func @f(%x: !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>) -> !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>
  }
}
