// RUN: ringfuse-opt %s --split-input-file --poly-to-rns --verify-diagnostics

!r = !poly.poly<#poly.ring<N = 16, moduli = [193, 257]>>
// expected-error@+1 {{poly-to-rns expects a function of polynomials returning ciphertext components (run bfv-to-poly first)}}
func.func @f(%a: !r, %i: i64) -> !r {
  %0 = poly.add %a, %a : !r
  return %0 : !r
}
