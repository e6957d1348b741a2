// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters | FileCheck %s

// One multiplication at t = 65537 needs about 70 bits: two 35-bit primes and
// a third for P stay within N = 4096's 106 bits.
// CHECK: #params = #bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>
// CHECK-LABEL: func.func @product
// CHECK-SAME: !bfv.ciphertext<#params, 2>
#p = #bfv.params<t = 65537>
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// -----

// Depth 4 needs about 168 bits: four 42-bit primes (plus P) fit N = 8192.
// CHECK: #params = #bfv.params<t = 65537, N = 8192, Q = [4398046150657, 4398045708289, 4398045511681, 4398045380609], P = [4398045315073], dnum = 4>
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

// A ring degree fixed by the user is kept.
// CHECK: #params = #bfv.params<t = 65537, N = 32768
#p = #bfv.params<t = 65537, N = 32768>
func.func @fixed(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.add %x, %x : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// Slots need t = 1 mod 2N: t = 786433 = 3 * 2^18 + 1 allows N up to 2^17,
// t = 40961 = 5 * 2^13 + 1 only up to 2^12.
// CHECK: #params = #bfv.params<t = 40961, N = 4096
#p = #bfv.params<t = 40961>
func.func @rotation(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.rotate %x by 1 : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// Chosen parameters are kept as they are.
// CHECK: #params = #bfv.params<t = 65537, N = 16, Q = [97, 193], P = [353]>
#p = #bfv.params<t = 65537, N = 16, Q = [97, 193], P = [353]>
func.func @given(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.negate %x : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// Plaintext inputs are slot vectors: t = 40961 batches only up to N = 4096.
// CHECK: #params = #bfv.params<t = 40961, N = 4096
#p = #bfv.params<t = 40961>
func.func @plain(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// Without batching at any degree, plaintexts are coefficient vectors.
// CHECK: #params = #bfv.params<t = 256, N = 4096
#p = #bfv.params<t = 256>
func.func @coefficients(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.add_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %0 : !bfv.ciphertext<#p, 2>
}
