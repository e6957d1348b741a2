// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --verify-diagnostics

// expected-error@+1 {{bfv-to-poly needs chosen parameters (N, Q and P); run bfv-select-parameters first}}
module {
  func.func @f(%x: !bfv.ciphertext<#bfv.params<t = 97>, 2>) -> !bfv.ciphertext<#bfv.params<t = 97>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 97>, 2>
  }
}

// -----

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353]>
func.func @f(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // expected-error@+1 {{'bfv.sum_slots' op must be expanded first (run bfv-expand-slot-sums)}}
  %0 = bfv.sum_slots %x : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}
