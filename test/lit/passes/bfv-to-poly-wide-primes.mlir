// RUN: ringfuse-opt %s --bfv-to-poly | FileCheck %s

// Q and P may have primes up to 61 bits.
// CHECK: #poly.ring<N = 16, moduli = [2305843009213693921, 2305843009213693153]>
#p = #bfv.params<t = 97, N = 16, Q = [2305843009213693921, 2305843009213693153], P = [2305843009213692737], dnum = 2>
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}
