// RUN: ringfuse-opt %s --bfv-to-poly | FileCheck %s
// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=chps --bfv-to-poly | FileCheck %s --check-prefix=CHPS

// Q and P may have primes up to 61 bits.
// Compact HPS's R ~ Q counts bits: three 60-bit primes for Q's two of 61.
// CHPS: #poly.ring<N = 16, moduli = [1152921504606845473, 1152921504606844513, 1152921504606844417]>
// CHECK: #poly.ring<N = 16, moduli = [2305843009213693921, 2305843009213693153]>
#p = #bfv.params<t = 97, N = 16, Q = [2305843009213693921, 2305843009213693153], P = [2305843009213692737], dnum = 2>
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}
