// RUN: ringfuse-opt %s --bfv-expand-slot-sums --verify-diagnostics

// The tree depends on N; a traced circuit that has not had its parameters
// chosen cannot be expanded.
#p = #bfv.params<t = 65537>
func.func @sum(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // expected-error@+1 {{'bfv.sum_slots' op cannot be expanded before the ring degree N is chosen}}
  %0 = bfv.sum_slots %x : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}
