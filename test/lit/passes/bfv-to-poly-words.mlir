// RUN: ringfuse-opt %s --bfv-to-poly | FileCheck %s
// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=behz --bfv-to-poly | FileCheck %s --check-prefix=BEHZ

// With 32-bit words (bfv.word_bits = 32) the auxiliary base B is made of
// primes below 2^30, = 1 mod 2N: a product over Q = 193 * 257 needs 30 bits
// of B, two such primes (29 bits each at least) where one 60-bit prime does
// with 64-bit words. BEHZ's Bsk is B and one prime more, below 2^30 too.
// CHECK-DAG: #poly.ring<N = 16, moduli = [193, 257, 1073741441, 1073740609]>
// BEHZ-DAG: #poly.ring<N = 16, moduli = [193, 257, 1073741441, 1073740609, 1073739937]>
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
module attributes {bfv.word_bits = 32 : i64} {
  func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
    %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
    return %1 : !bfv.ciphertext<#p, 2>
  }
}
