// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=hps,bgv --verify-diagnostics

// expected-error@+1 {{bfv-choose-variant: unknown candidate 'bgv' (hps, lhps, chps or behz)}}
module {
  func.func @f(%x: !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>) -> !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>
  }
}
