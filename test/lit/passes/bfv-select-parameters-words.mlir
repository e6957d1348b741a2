// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters=word-bits=32 | FileCheck %s

// With 32-bit words the primes stay below 2^30: depth 4 needs about 168
// bits, six 30-bit primes and a seventh for P, where 64-bit words take four
// 42-bit ones (bfv-select-parameters.mlir). The module records the word size.
// CHECK: #params = #bfv.params<t = 65537, N = 8192, Q = [1073692673, 1073643521, 1073479681, 1073430529, 1073299457, 1073233921], P = [1073184769], dnum = 6>
// CHECK: module attributes {bfv.word_bits = 32 : i64}
#p = #bfv.params<t = 65537>
func.func @depth4(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %x : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %2 = bfv.mul %1, %1 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %3 = bfv.relinearize %2 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %4 = bfv.mul %3, %3 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %5 = bfv.relinearize %4 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %6 = bfv.mul %5, %5 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %7 = bfv.relinearize %6 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %7 : !bfv.ciphertext<#p, 2>
}

// -----

// Given moduli below 2^30 are kept as they are, and the word size recorded.
// CHECK: #params = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// CHECK: module attributes {bfv.word_bits = 32 : i64}
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
func.func @given(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  return %x : !bfv.ciphertext<#p, 2>
}
