// Transform counts without the pass (prefixes BNTT and BINTT; poly-to-rns
// places them around every product and key switch, canonicalize merges some)
// and with it (NTT and INTT). The pass must never need more.
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse | FileCheck %s --check-prefixes=ALL,BNTT
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse | FileCheck %s --check-prefixes=ALL,BINTT
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains | FileCheck %s --check-prefixes=ALL,NTT
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains | FileCheck %s --check-prefixes=ALL,INTT
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains | FileCheck %s --check-prefixes=ALL,AFTER
// The result still verifies and lowers:
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains --canonicalize --cse --rns-to-kernel > /dev/null

// x * y relinearized: 11 transforms before, 11 after. Every product is
// between an exact lift and a scale-and-round, both coefficient-only, and the
// key switch's digits come from conversions: nothing to keep in evaluation
// form.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @product
// BNTT-COUNT-6: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-5: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-6: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-5: rns.intt
// INTT-NOT: rns.intt
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// -----

// A rotation: 4 before, 4 after (the digits' NTTs and the key-switch sums'
// inverse NTTs; the automorphisms stay on coefficients).
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @rotation
// BNTT-COUNT-2: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-2: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-2: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-2: rns.intt
// INTT-NOT: rns.intt
// AFTER: rns.automorphism %{{.*}} by 3 : !rns.poly<16, #Q, coeff>
func.func @rotation(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.rotate %x by 1 : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// Rotate-and-sum: 8 before, 8 after.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @rotate_and_sum
// BNTT-COUNT-4: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-4: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-4: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-4: rns.intt
// INTT-NOT: rns.intt
func.func @rotate_and_sum(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %r1 = bfv.rotate %x by 1 : !bfv.ciphertext<#p, 2>
  %a1 = bfv.add %x, %r1 : !bfv.ciphertext<#p, 2>
  %r2 = bfv.rotate %a1 by 2 : !bfv.ciphertext<#p, 2>
  %a2 = bfv.add %a1, %r2 : !bfv.ciphertext<#p, 2>
  return %a2 : !bfv.ciphertext<#p, 2>
}

// -----

// x * y + z * w: 22 before, 22 after.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @two_products
// BNTT-COUNT-12: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-10: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-12: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-10: rns.intt
// INTT-NOT: rns.intt
func.func @two_products(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>, %z: !bfv.ciphertext<#p, 2>, %w: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %2 = bfv.mul %z, %w : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %3 = bfv.relinearize %2 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %4 = bfv.add %1, %3 : !bfv.ciphertext<#p, 2>
  return %4 : !bfv.ciphertext<#p, 2>
}

// -----

// A product times a plaintext: 16 before, 16 after (the relinearized
// product is coefficient form, so its components go to evaluation form for
// the plaintext product and back).
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @plain_product
// BNTT-COUNT-9: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-7: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-9: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-7: rns.intt
// INTT-NOT: rns.intt
func.func @plain_product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>, %m: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %2 = bfv.mul_plain %1, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %2 : !bfv.ciphertext<#p, 2>
}

// -----

// Additions between plaintext products: 13 before, 7 after. The sums,
// difference and negation run in evaluation form, so only the inputs and the
// plaintext go in and the two output components come out.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @additions_between_products
// BNTT-COUNT-7: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-6: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-5: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-2: rns.intt
// INTT-NOT: rns.intt
// AFTER-COUNT-2: rns.add %{{.*}} : !rns.poly<16, #Q, eval>
// AFTER-COUNT-2: rns.sub %{{.*}} : !rns.poly<16, #Q, eval>
// AFTER-COUNT-2: rns.neg %{{.*}} : !rns.poly<16, #Q, eval>
func.func @additions_between_products(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>, %m: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul_plain %x, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %1 = bfv.mul_plain %y, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %2 = bfv.add %0, %1 : !bfv.ciphertext<#p, 2>
  %3 = bfv.sub %2, %0 : !bfv.ciphertext<#p, 2>
  %4 = bfv.negate %3 : !bfv.ciphertext<#p, 2>
  %5 = bfv.mul_plain %4, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %5 : !bfv.ciphertext<#p, 2>
}

// -----

// Plaintext products (one by an encoded constant) and a rotation: 18 before,
// 13 after. The second product follows the first in evaluation form, and so
// does the automorphism of c0 (the key switch needs c1's on coefficients
// either way). The constant is over t and lifted to Q by a conversion, so its
// lift is transformed at run time like any plaintext's.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @plain_chain
// BNTT-COUNT-10: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-8: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-8: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-5: rns.intt
// INTT-NOT: rns.intt
// AFTER: rns.automorphism %{{.*}} by 3 : !rns.poly<16, #Q, eval>
func.func @plain_chain(%x: !bfv.ciphertext<#p, 2>, %m: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %c = bfv.encode 5 : i64 -> !bfv.plaintext<#p>
  %0 = bfv.mul_plain %x, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %1 = bfv.mul_plain %0, %c : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %2 = bfv.rotate %1 by 1 : !bfv.ciphertext<#p, 2>
  %3 = bfv.mul_plain %2, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %3 : !bfv.ciphertext<#p, 2>
}

// -----

// Two fresh inputs added between plaintext products: 9 before, 9 after.
// Moving the additions to evaluation form trades the product's two inverse
// NTTs for the inputs' four forward NTTs and saves the final product's two
// forward NTTs: no saving either way (the pass keeps the tie in evaluation
// form). With one input less it would save two (x * m + y) * m.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @fresh_additions
// BNTT-COUNT-5: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-4: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-7: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-2: rns.intt
// INTT-NOT: rns.intt
func.func @fresh_additions(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>, %z: !bfv.ciphertext<#p, 2>, %m: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul_plain %x, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %1 = bfv.add %0, %y : !bfv.ciphertext<#p, 2>
  %2 = bfv.sub %1, %z : !bfv.ciphertext<#p, 2>
  %3 = bfv.negate %2 : !bfv.ciphertext<#p, 2>
  %4 = bfv.mul_plain %3, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %4 : !bfv.ciphertext<#p, 2>
}

// -----

// (x * m + y) * m: 9 before, 7 after: the sum in evaluation form costs y's
// two NTTs and saves the product's two inverse and two forward NTTs.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @one_fresh_addition
// BNTT-COUNT-5: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-4: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-5: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-2: rns.intt
// INTT-NOT: rns.intt
func.func @one_fresh_addition(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>, %m: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul_plain %x, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %1 = bfv.add %0, %y : !bfv.ciphertext<#p, 2>
  %2 = bfv.mul_plain %1, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %2 : !bfv.ciphertext<#p, 2>
}

// -----

// Only additions and a plaintext added: no transforms before or after.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// ALL-LABEL: func.func @linear
// BNTT-NOT: rns.ntt
// BINTT-NOT: rns.intt
// NTT-NOT: rns.ntt
// INTT-NOT: rns.intt
func.func @linear(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>, %m: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.add %x, %y : !bfv.ciphertext<#p, 2>
  %1 = bfv.add_plain %0, %m : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %2 = bfv.negate %1 : !bfv.ciphertext<#p, 2>
  return %2 : !bfv.ciphertext<#p, 2>
}
