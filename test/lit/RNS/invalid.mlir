// Every rns verifier message, one case each.
// RUN: ringfuse-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{basis Q: moduli 6 and 9 are not coprime}}
#Q = #rns.basis<Q: [6, 9]>

// -----

// expected-error@+1 {{basis Q has no moduli}}
#Q = #rns.basis<Q: []>

// -----

// expected-error@+1 {{basis Q: modulus 1 is outside [2, 2^63)}}
#Q = #rns.basis<Q: [1]>

// -----

#Q = #rns.basis<Q: [97, 256]>
// expected-error@+1 {{the evaluation domain needs NTT-friendly primes (1 mod 2N = 32, below 2^62); 256 in basis Q is not one}}
func.func private @f(!rns.poly<16, #Q, eval>)

// -----

#Q = #rns.basis<Q: [97]>
// expected-error@+1 {{ring degree N must be a power of two in [2, 131072], got 12}}
func.func private @f(!rns.poly<12, #Q, coeff>)

// -----

#Q = #rns.basis<Q: [97]>
// expected-error@+1 {{expected the domain, coeff or eval}}
func.func private @f(!rns.poly<16, #Q, ntt>)

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.add' op mixes '!rns.poly<16, #rns.basis<Q: [97]>, coeff>' and '!rns.poly<16, #rns.basis<Q: [97]>, eval>'; convert or transform one first}}
  %0 = "rns.add"(%x, %y) : (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, eval>) -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.mul' op needs its operand in evaluation form, got '!rns.poly<16, #rns.basis<Q: [97]>, coeff>'}}
  %0 = rns.mul %x, %x : !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.ntt' op needs its operand in coefficient form}}
  %0 = rns.ntt %x : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, eval>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
#R = #rns.basis<R: [193]>
func.func @f(%x: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.intt' op result must be '!rns.poly<16, #rns.basis<Q: [97]>, coeff>'}}
  %0 = rns.intt %x : !rns.poly<16, #Q, eval> -> !rns.poly<16, #R, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.convert' op converts a basis to itself}}
  %0 = rns.convert %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
#R = #rns.basis<R: [193]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.convert' op cannot change the ring degree (16 to 32)}}
  %0 = rns.convert %x : !rns.poly<16, #Q, coeff> -> !rns.poly<32, #R, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.extract' op limbs [1, 3) are not a nonempty range of the 2 limbs}}
  %0 = rns.extract %x limbs 1 to 3 : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#D = #rns.basis<D: [97]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.extract' op result must hold exactly limbs [1, 2)}}
  %0 = rns.extract %x limbs 1 to 2 : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #D, coeff>
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !rns.poly<16, #QB, coeff>) {
  // expected-error@+1 {{'rns.scale_round' op input basis #rns.basis<QB: [97, 193, 353]> must consist of the divisor #rns.basis<Q: [97]> and the result's basis #rns.basis<B: [353]>}}
  %0 = rns.scale_round %x by 5 over #Q : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  return
}

// -----

#QB = #rns.basis<QB: [97, 353]>
#Q = #rns.basis<Q: [97]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !rns.poly<16, #QB, coeff>) {
  // expected-error@+1 {{'rns.scale_round' op needs a positive numerator, got 0}}
  %0 = rns.scale_round %x by 0 over #Q : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.scale_up' op scales a plaintext over one modulus t, got basis #rns.basis<Q: [97, 193]>}}
  %0 = rns.scale_up %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#T = #rns.basis<T: [97]>
#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !rns.poly<16, #T, coeff>) {
  // expected-error@+1 {{'rns.scale_up' op the plaintext modulus must not be in the result's basis}}
  %0 = rns.scale_up %x : !rns.poly<16, #T, coeff> -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.automorphism' op Galois element 4 is not an odd number in [1, 2N = 32)}}
  %0 = rns.automorphism %x by 4 : !rns.poly<16, #Q, coeff>
  return
}

// -----

// Either domain, but the result's is the input's: the permutation of
// evaluation form is no coefficient-form result.
#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.automorphism' op mixes '!rns.poly<16, #rns.basis<Q: [97]>, eval>' and '!rns.poly<16, #rns.basis<Q: [97]>, coeff>'; convert or transform one first}}
  %0 = "rns.automorphism"(%x) {galoisElement = 3 : i64} : (!rns.poly<16, #Q, eval>) -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.automorphism' op Galois element 33 is not an odd number in [1, 2N = 32)}}
  %0 = rns.automorphism %x by 33 : !rns.poly<16, #Q, eval>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.key_switch_inner_product' op needs its operand in evaluation form}}
  %0, %1 = rns.key_switch_inner_product %x {key = 0} : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.key_switch_inner_product' op key 4 is neither 0 (relinearization) nor a Galois element (an odd number below 2N = 32)}}
  %0, %1 = rns.key_switch_inner_product %x {key = 4} : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.key_switch_inner_product' op key 33 is neither 0 (relinearization) nor a Galois element (an odd number below 2N = 32)}}
  %0, %1 = rns.key_switch_inner_product %x {key = 33} : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 449]>
#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !rns.poly<16, #QP, eval>, %e: !rns.poly<16, #Q, eval>) {
  // A scale is a residue: below its limb's modulus.
  // expected-error@+1 {{'rns.key_switch_inner_product' op scale 200 is not below its modulus 193}}
  %0, %1 = rns.key_switch_inner_product %x plus(%e, %e : !rns.poly<16, #Q, eval>) scaled [1, 200] {key = 0} : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 449]>
#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !rns.poly<16, #QP, eval>, %e: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.key_switch_inner_product' op needs one scale per addend limb (2), got 1}}
  %0, %1 = rns.key_switch_inner_product %x plus(%e, %e : !rns.poly<16, #Q, eval>) scaled [1] {key = 0} : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 449]>
#R = #rns.basis<R: [193, 449]>
func.func @f(%x: !rns.poly<16, #QP, eval>, %e: !rns.poly<16, #R, eval>) {
  // The addends cover the first moduli of the digits' basis, not others.
  // expected-error@+1 {{'rns.key_switch_inner_product' op addends must be in evaluation form over the first moduli of the digits' basis #rns.basis<QP: [97, 193, 449]>, got '!rns.poly<16, #rns.basis<R: [193, 449]>, eval>'}}
  %0, %1 = rns.key_switch_inner_product %x plus(%e, %e : !rns.poly<16, #R, eval>) scaled [1, 1] {key = 0} : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 449]>
#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !rns.poly<16, #QP, eval>, %e: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.key_switch_inner_product' op addends must be in evaluation form over the first moduli of the digits' basis}}
  %0, %1 = rns.key_switch_inner_product %x plus(%e, %e : !rns.poly<16, #Q, coeff>) scaled [1, 1] {key = 0} : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
func.func @f(%x: !rns.poly<16, #Q, eval>) {
  // expected-error@+1 {{'rns.key_switch_inner_product' op key -1 is neither 0 (relinearization) nor a Galois element (an odd number below 2N = 32)}}
  %0, %1 = rns.key_switch_inner_product %x {key = -1} : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
  return
}

// -----

#Q = #rns.basis<Q: [97]>
#R = #rns.basis<R: [193]>
func.func @f(%x: !rns.poly<16, #Q, eval>, %y: !rns.poly<16, #R, eval>) {
  // expected-error@+1 {{'rns.key_switch_inner_product' op digits and results must all be}}
  %0, %1 = rns.key_switch_inner_product %x, %y {key = 0} : !rns.poly<16, #Q, eval>, !rns.poly<16, #R, eval> -> !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'rns.key_switch_inner_product' op needs at least one digit}}
  %0, %1 = "rns.key_switch_inner_product"() {key = 0 : i64} : () -> (!rns.poly<16, #rns.basis<Q: [97]>, eval>, !rns.poly<16, #rns.basis<Q: [97]>, eval>)
  return
}

// -----

#T = #rns.basis<T: [17]>
func.func @f() {
  // expected-error@+1 {{'rns.constant' op needs 2 residues (1 limbs of 2), got shape 'tensor<3xi64>'}}
  %0 = rns.constant dense<[1, 2, 3]> : tensor<3xi64> : !rns.poly<2, #T, coeff>
  return
}

// -----

#T = #rns.basis<T: [17]>
func.func @f() {
  // expected-error@+1 {{'rns.constant' op residue 17 is not below its modulus 17}}
  %0 = rns.constant dense<[1, 17]> : tensor<2xi64> : !rns.poly<2, #T, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [193, 257]>
func.func @transform_radix(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, eval> {
  // expected-error@+1 {{unsupported NTT shape: the radix must be 4, 8 or 16}}
  %0 = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 0, radix = 6, ot = 0>} : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  return %0 : !rns.poly<16, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [193, 257]>
func.func @transform_column_too_long(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, eval> {
  // expected-error@+1 {{unsupported NTT shape: logN1 must be 0 or in [4, 8]}}
  %0 = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 9, radix = 4, ot = 0>} : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  return %0 : !rns.poly<16, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [193, 257]>
func.func @transform_column_log(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, eval> {
  // expected-error@+1 {{unsupported NTT shape: logN1 must be 0 or in [4, 8]}}
  %0 = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 2, radix = 4, ot = 0>} : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  return %0 : !rns.poly<16, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [193, 257]>
func.func @transform_dgt_radix(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, eval> {
  // expected-error@+1 {{the DGT has a fixed split: radix and ot must be 0}}
  %0 = rns.ntt %x {transform = #rns.transform<dgt, logN1 = 1, radix = 4, ot = 0>} : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  return %0 : !rns.poly<16, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [193, 257]>
func.func @transform_ot(%x: !rns.poly<2, #Q, coeff>) -> !rns.poly<2, #Q, eval> {
  // expected-error@+1 {{'rns.ntt' op cannot run #rns.transform<ntt, logN1 = 0, radix = 4, ot = 2> on '!rns.poly<2, #rns.basis<Q: [193, 257]>, coeff>': unsupported NTT shape: more OT stages than row-step stages}}
  %0 = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 0, radix = 4, ot = 2>} : !rns.poly<2, #Q, coeff> -> !rns.poly<2, #Q, eval>
  return %0 : !rns.poly<2, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [65537]>
func.func @transform_rows(%x: !rns.poly<4096, #Q, eval>) -> !rns.poly<4096, #Q, coeff> {
  // expected-error@+1 {{unsupported NTT shape: rows above 2^11 words do not fit one block}}
  %0 = rns.intt %x {transform = #rns.transform<ntt, logN1 = 0, radix = 4, ot = 0>} : !rns.poly<4096, #Q, eval> -> !rns.poly<4096, #Q, coeff>
  return %0 : !rns.poly<4096, #Q, coeff>
}

// -----

#Q = #rns.basis<Q: [193, 257]>
func.func @transform_dgt_rows(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, eval> {
  // expected-error@+1 {{the DGT of N = 16 has 2^1 rows, so logN1 must be 1}}
  %0 = rns.ntt %x {transform = #rns.transform<dgt, logN1 = 2, radix = 0, ot = 0>} : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  return %0 : !rns.poly<16, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [40961, 65537]>
func.func @transform_too_many_ot_stages(%x: !rns.poly<4096, #Q, coeff>) -> !rns.poly<4096, #Q, eval> {
  // expected-error@+1 {{at most 2 stages twiddle on the fly}}
  %0 = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 6, radix = 4, ot = 3>} : !rns.poly<4096, #Q, coeff> -> !rns.poly<4096, #Q, eval>
  return %0 : !rns.poly<4096, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [40961, 65537]>
func.func @transform_dgt_too_many_rows(%x: !rns.poly<4096, #Q, coeff>) -> !rns.poly<4096, #Q, eval> {
  // expected-error@+1 {{the DGT's log2 rows is at most 8}}
  %0 = rns.ntt %x {transform = #rns.transform<dgt, logN1 = 9, radix = 0, ot = 0>} : !rns.poly<4096, #Q, coeff> -> !rns.poly<4096, #Q, eval>
  return %0 : !rns.poly<4096, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [193, 257]>
func.func @transform_dgt_ring_too_small(%x: !rns.poly<2, #Q, coeff>) -> !rns.poly<2, #Q, eval> {
  // expected-error@+1 {{the DGT needs N in [2^2, 2^17], got 2}}
  %0 = rns.ntt %x {transform = #rns.transform<dgt, logN1 = 0, radix = 0, ot = 0>} : !rns.poly<2, #Q, coeff> -> !rns.poly<2, #Q, eval>
  return %0 : !rns.poly<2, #Q, eval>
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#E = #rns.basis<E: [97, 193, 4]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.convert' op montgomery conversion needs odd moduli (m~ = 2^32 must be invertible), but #rns.basis<E: [97, 193, 4]> has 4}}
  %0 = rns.convert %x montgomery : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #E, coeff>
  return
}

// -----

#M = #rns.basis<M: [353]>
#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !rns.poly<16, #M, coeff>) {
  // expected-error@+1 {{'rns.convert' op shenoy_kumaresan conversion needs a base and a redundant last modulus, but #rns.basis<M: [353]> has one modulus}}
  %0 = rns.convert %x shenoy_kumaresan : !rns.poly<16, #M, coeff> -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#R = #rns.basis<R: [353, 449]>
func.func @f(%x: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.scale_round' op a fast floor keeps moduli of its input; it cannot switch to disjoint moduli}}
  %0 = rns.scale_round %x by 158497 over #Q floor : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #R, coeff>
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !rns.poly<16, #QB, coeff>) {
  // expected-error@+1 {{'rns.scale_round' op a fast floor has no exact conversion to fuse (via #rns.basis<B: [353]>)}}
  %0 = rns.scale_round %x by 5 over #Q floor via #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !rns.poly<16, #QB, coeff>) {
  // expected-error@+1 {{'rns.scale_round' op result basis #rns.basis<B: [353]> converts nothing: each of its moduli is in via #rns.basis<B: [353]>}}
  %0 = rns.scale_round %x by 5 over #Q via #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !rns.poly<16, #QB, coeff>, %c: !rns.poly<16, #Q, coeff>) {
  // expected-error@+1 {{'rns.scale_round' op adds nothing after a fused conversion (via #rns.basis<B: [353]>)}}
  %0 = rns.scale_round %x by 5 over #Q via #B plus %c : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97]>
#B = #rns.basis<B: [353]>
#T = #rns.basis<T: [449]>
func.func @f(%x: !rns.poly<16, #QB, coeff>) {
  // expected-error@+1 {{'rns.scale_round' op input basis #rns.basis<QB: [97, 193, 353]> must consist of the divisor #rns.basis<Q: [97]> and via #rns.basis<B: [353]>}}
  %0 = rns.scale_round %x by 5 over #Q via #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #T, coeff>
  return
}

