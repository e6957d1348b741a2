// RUN: ringfuse-opt %s --bfv-choose-variant=cost-table=%t.missing.json --verify-diagnostics

// The transform costs come from the autotuner's table; one that cannot be
// read is an error, not a silent fallback.
// expected-error@+1 {{bfv-choose-variant: cost table}}
module {
  func.func @f(%x: !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>) -> !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>
  }
}
