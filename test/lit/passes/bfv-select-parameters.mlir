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

// A rotation by 3000 needs rows of more than 3000 slots: N = 8192.
// CHECK: #params = #bfv.params<t = 65537, N = 8192
#p = #bfv.params<t = 65537>
func.func @far_rotation(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.rotate %x by 3000 : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// A constant of 5000 slots needs N = 8192.
// CHECK: #params = #bfv.params<t = 65537, N = 8192
#p = #bfv.params<t = 65537>
func.func @long_constant(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %c = bfv.encode dense<1> : tensor<5000xi64> -> !bfv.plaintext<#p>
  %0 = bfv.add_plain %x, %c : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// Sums grow noise by log2 of the number of terms, not a bit per addition:
// x added 64 times needs about 40 bits, one prime at N = 4096 (a bit per
// addition would have asked for more than 90 bits and N = 8192).
// CHECK: #params = #bfv.params<t = 40961, N = 4096, Q = [{{[0-9]+}}], P = [{{[0-9]+}}], dnum = 1>
#p = #bfv.params<t = 40961>
func.func @long_sum(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %a0 = bfv.add %x, %x : !bfv.ciphertext<#p, 2>
  %a1 = bfv.add %a0, %x : !bfv.ciphertext<#p, 2>
  %a2 = bfv.add %a1, %x : !bfv.ciphertext<#p, 2>
  %a3 = bfv.add %a2, %x : !bfv.ciphertext<#p, 2>
  %a4 = bfv.add %a3, %x : !bfv.ciphertext<#p, 2>
  %a5 = bfv.add %a4, %x : !bfv.ciphertext<#p, 2>
  %a6 = bfv.add %a5, %x : !bfv.ciphertext<#p, 2>
  %a7 = bfv.add %a6, %x : !bfv.ciphertext<#p, 2>
  %a8 = bfv.add %a7, %x : !bfv.ciphertext<#p, 2>
  %a9 = bfv.add %a8, %x : !bfv.ciphertext<#p, 2>
  %a10 = bfv.add %a9, %x : !bfv.ciphertext<#p, 2>
  %a11 = bfv.add %a10, %x : !bfv.ciphertext<#p, 2>
  %a12 = bfv.add %a11, %x : !bfv.ciphertext<#p, 2>
  %a13 = bfv.add %a12, %x : !bfv.ciphertext<#p, 2>
  %a14 = bfv.add %a13, %x : !bfv.ciphertext<#p, 2>
  %a15 = bfv.add %a14, %x : !bfv.ciphertext<#p, 2>
  %a16 = bfv.add %a15, %x : !bfv.ciphertext<#p, 2>
  %a17 = bfv.add %a16, %x : !bfv.ciphertext<#p, 2>
  %a18 = bfv.add %a17, %x : !bfv.ciphertext<#p, 2>
  %a19 = bfv.add %a18, %x : !bfv.ciphertext<#p, 2>
  %a20 = bfv.add %a19, %x : !bfv.ciphertext<#p, 2>
  %a21 = bfv.add %a20, %x : !bfv.ciphertext<#p, 2>
  %a22 = bfv.add %a21, %x : !bfv.ciphertext<#p, 2>
  %a23 = bfv.add %a22, %x : !bfv.ciphertext<#p, 2>
  %a24 = bfv.add %a23, %x : !bfv.ciphertext<#p, 2>
  %a25 = bfv.add %a24, %x : !bfv.ciphertext<#p, 2>
  %a26 = bfv.add %a25, %x : !bfv.ciphertext<#p, 2>
  %a27 = bfv.add %a26, %x : !bfv.ciphertext<#p, 2>
  %a28 = bfv.add %a27, %x : !bfv.ciphertext<#p, 2>
  %a29 = bfv.add %a28, %x : !bfv.ciphertext<#p, 2>
  %a30 = bfv.add %a29, %x : !bfv.ciphertext<#p, 2>
  %a31 = bfv.add %a30, %x : !bfv.ciphertext<#p, 2>
  %a32 = bfv.add %a31, %x : !bfv.ciphertext<#p, 2>
  %a33 = bfv.add %a32, %x : !bfv.ciphertext<#p, 2>
  %a34 = bfv.add %a33, %x : !bfv.ciphertext<#p, 2>
  %a35 = bfv.add %a34, %x : !bfv.ciphertext<#p, 2>
  %a36 = bfv.add %a35, %x : !bfv.ciphertext<#p, 2>
  %a37 = bfv.add %a36, %x : !bfv.ciphertext<#p, 2>
  %a38 = bfv.add %a37, %x : !bfv.ciphertext<#p, 2>
  %a39 = bfv.add %a38, %x : !bfv.ciphertext<#p, 2>
  %a40 = bfv.add %a39, %x : !bfv.ciphertext<#p, 2>
  %a41 = bfv.add %a40, %x : !bfv.ciphertext<#p, 2>
  %a42 = bfv.add %a41, %x : !bfv.ciphertext<#p, 2>
  %a43 = bfv.add %a42, %x : !bfv.ciphertext<#p, 2>
  %a44 = bfv.add %a43, %x : !bfv.ciphertext<#p, 2>
  %a45 = bfv.add %a44, %x : !bfv.ciphertext<#p, 2>
  %a46 = bfv.add %a45, %x : !bfv.ciphertext<#p, 2>
  %a47 = bfv.add %a46, %x : !bfv.ciphertext<#p, 2>
  %a48 = bfv.add %a47, %x : !bfv.ciphertext<#p, 2>
  %a49 = bfv.add %a48, %x : !bfv.ciphertext<#p, 2>
  %a50 = bfv.add %a49, %x : !bfv.ciphertext<#p, 2>
  %a51 = bfv.add %a50, %x : !bfv.ciphertext<#p, 2>
  %a52 = bfv.add %a51, %x : !bfv.ciphertext<#p, 2>
  %a53 = bfv.add %a52, %x : !bfv.ciphertext<#p, 2>
  %a54 = bfv.add %a53, %x : !bfv.ciphertext<#p, 2>
  %a55 = bfv.add %a54, %x : !bfv.ciphertext<#p, 2>
  %a56 = bfv.add %a55, %x : !bfv.ciphertext<#p, 2>
  %a57 = bfv.add %a56, %x : !bfv.ciphertext<#p, 2>
  %a58 = bfv.add %a57, %x : !bfv.ciphertext<#p, 2>
  %a59 = bfv.add %a58, %x : !bfv.ciphertext<#p, 2>
  %a60 = bfv.add %a59, %x : !bfv.ciphertext<#p, 2>
  %a61 = bfv.add %a60, %x : !bfv.ciphertext<#p, 2>
  %a62 = bfv.add %a61, %x : !bfv.ciphertext<#p, 2>
  %a63 = bfv.add %a62, %x : !bfv.ciphertext<#p, 2>
  %a64 = bfv.add %a63, %x : !bfv.ciphertext<#p, 2>
  return %a64 : !bfv.ciphertext<#p, 2>
}
