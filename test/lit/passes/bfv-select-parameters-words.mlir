// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters=word-bits=32 | FileCheck %s

// With 32-bit words the primes stay below 2^30: depth 4 needs about 168
// bits, six 30-bit primes, where 64-bit words take four 42-bit ones
// (bfv-select-parameters.mlir). Key-switching digits of two primes (and a P
// of two) would pass N = 8192's bound of 218 bits, so a digit is one prime
// and P a seventh. The module records the word size.
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

// -----

// At N = 2^16 the bound leaves room: digits of two primes (about 60 bits, as
// with 64-bit words) and a P of two, dnum = 4 for Q's seven primes.
// CHECK: #params = #bfv.params<t = 786433, N = 65536, Q = [1073479681, 1071513601, 1070727169, 1068236801, 1065484289, 1064697857, 1062862849], P = [1062469633, 1060765697], dnum = 4>
#p = #bfv.params<t = 786433, N = 65536>
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

// A module that records 32-bit words keeps them, whatever the option says.
// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters | FileCheck %s --check-prefix=KEPT
// (26-bit primes: 30-bit ones and a P as wide would pass N = 4096's bound.)
// KEPT: #params = #bfv.params<t = 65537, N = 4096, Q = [67084289, 67043329, 66994177], P = [66969601], dnum = 3>
// KEPT-NEXT: module attributes {bfv.word_bits = 32 : i64}
module attributes {bfv.word_bits = 32 : i64} {
  func.func @product(%x: !bfv.ciphertext<#bfv.params<t = 65537>, 2>, %y: !bfv.ciphertext<#bfv.params<t = 65537>, 2>) -> !bfv.ciphertext<#bfv.params<t = 65537>, 2> {
    %0 = bfv.mul %x, %y : !bfv.ciphertext<#bfv.params<t = 65537>, 2> -> !bfv.ciphertext<#bfv.params<t = 65537>, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#bfv.params<t = 65537>, 3> -> !bfv.ciphertext<#bfv.params<t = 65537>, 2>
    return %1 : !bfv.ciphertext<#bfv.params<t = 65537>, 2>
  }
}
