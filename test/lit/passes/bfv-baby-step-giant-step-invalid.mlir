// RUN: ringfuse-opt %s --bfv-baby-step-giant-step --verify-diagnostics

// The steps are taken mod N/2, so N must be known.
#p = #bfv.params<t = 65537>
func.func @f(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %r = bfv.rotate %x by 1 : !bfv.ciphertext<#p, 2>
  %t = bfv.mul_plain %r, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  // expected-error@+1 {{'bfv.add' op bfv-baby-step-giant-step needs the ring degree N (run bfv-select-parameters first)}}
  %s = bfv.add %t, %x : !bfv.ciphertext<#p, 2>
  return %s : !bfv.ciphertext<#p, 2>
}
