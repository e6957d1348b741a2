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

// -----

// A module of 32-bit words whose Q is not below 2^30 (changed after
// bfv-select-parameters checked it).
// expected-error@+1 {{bfv-to-poly: a module of 32-bit words has moduli below 2^30, but 34359697409 is not}}
module attributes {bfv.word_bits = 32 : i64} {
  func.func @wide(%x: !bfv.ciphertext<#bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>, 2>) -> !bfv.ciphertext<#bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>, 2>
  }
}
