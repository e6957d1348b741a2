// Every poly verifier message, one case each.
// RUN: ringfuse-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{ring degree N must be a power of two in [2, 131072], got 24}}
#r = #poly.ring<N = 24, moduli = [97]>

// -----

// expected-error@+1 {{ring degree N must be a power of two in [2, 131072], got 1}}
#r = #poly.ring<N = 1, moduli = [97]>

// -----

// expected-error@+1 {{modulus 1 is below 2}}
#r = #poly.ring<N = 16, moduli = [97, 1]>

// -----

// expected-error@+1 {{moduli 6 and 9 are not coprime, so they do not form an RNS basis}}
#r = #poly.ring<N = 16, moduli = [6, 9]>

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 16, moduli = [193]>
func.func @f(%x: !poly.poly<#a>, %y: !poly.poly<#b>) {
  // expected-error@+1 {{'poly.add' op mixes rings: #poly.ring<N = 16, moduli = [97]> and #poly.ring<N = 16, moduli = [193]>; move one into the other's ring with poly.scale_round first}}
  %0 = "poly.add"(%x, %y) : (!poly.poly<#a>, !poly.poly<#b>) -> !poly.poly<#a>
  return
}

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 32, moduli = [97]>
func.func @f(%x: !poly.poly<#a>) {
  // expected-error@+1 {{'poly.sub' op mixes rings: #poly.ring<N = 16, moduli = [97]> and #poly.ring<N = 32, moduli = [97]>}}
  %0 = "poly.sub"(%x, %x) : (!poly.poly<#a>, !poly.poly<#a>) -> !poly.poly<#b>
  return
}

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%x: !poly.poly<#a>, %y: !poly.poly<#b>) {
  // expected-error@+1 {{'poly.mul' op mixes rings}}
  %0 = "poly.mul"(%x, %y) : (!poly.poly<#a>, !poly.poly<#b>) -> !poly.poly<#a>
  return
}

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 16, moduli = [193]>
func.func @f(%x: !poly.poly<#a>) {
  // expected-error@+1 {{'poly.neg' op mixes rings}}
  %0 = "poly.neg"(%x) : (!poly.poly<#a>) -> !poly.poly<#b>
  return
}

// -----

#r = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%x: !poly.poly<#r>) {
  // expected-error@+1 {{'poly.mul_scalar' op scalar 18721 is not reduced below the ring modulus 18721}}
  %0 = poly.mul_scalar %x, 18721 : !poly.poly<#r>
  return
}

// -----

#r = #poly.ring<N = 16, moduli = [97]>
func.func @f(%x: !poly.poly<#r>) {
  // expected-error@+1 {{expected a non-negative integer}}
  %0 = poly.mul_scalar %x, -3 : !poly.poly<#r>
  return
}

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 32, moduli = [97]>
func.func @f(%x: !poly.poly<#a>) {
  // expected-error@+1 {{'poly.scale_round' op cannot change the ring degree (N = 16 to N = 32)}}
  %0 = poly.scale_round %x by 1 / 1 : !poly.poly<#a> -> !poly.poly<#b>
  return
}

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 16, moduli = [17]>
func.func @f(%x: !poly.poly<#a>) {
  // expected-error@+1 {{'poly.scale_round' op needs a positive factor, got 17 / 0}}
  %0 = poly.scale_round %x by 17 / 0 : !poly.poly<#a> -> !poly.poly<#b>
  return
}

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 16, moduli = [17]>
func.func @f(%x: !poly.poly<#a>) {
  // expected-error@+1 {{'poly.scale_round' op needs a positive factor, got 0 / 97}}
  %0 = poly.scale_round %x by 0 / 97 : !poly.poly<#a> -> !poly.poly<#b>
  return
}

// -----

#r = #poly.ring<N = 16, moduli = [97]>
func.func @f(%x: !poly.poly<#r>) {
  // expected-error@+1 {{'poly.automorphism' op Galois element 4 is not an odd number in [1, 2N = 32), so X -> X^4 is no automorphism}}
  %0 = poly.automorphism %x by 4 : !poly.poly<#r>
  return
}

// -----

#r = #poly.ring<N = 16, moduli = [97]>
func.func @f(%x: !poly.poly<#r>) {
  // expected-error@+1 {{'poly.automorphism' op Galois element 33 is not an odd number in [1, 2N = 32)}}
  %0 = poly.automorphism %x by 33 : !poly.poly<#r>
  return
}

// -----

#r = #poly.ring<N = 16, moduli = [97]>
func.func @f(%x: !poly.poly<#r>) {
  // expected-error@+1 {{'poly.automorphism' op Galois element -1 is not an odd number in [1, 2N = 32)}}
  %0 = poly.automorphism %x by -1 : !poly.poly<#r>
  return
}

// -----

#a = #poly.ring<N = 16, moduli = [97]>
#b = #poly.ring<N = 16, moduli = [193]>
func.func @f(%x: !poly.poly<#a>) {
  // expected-error@+1 {{'poly.automorphism' op mixes rings}}
  %0 = "poly.automorphism"(%x) {galoisElement = 3 : i64} : (!poly.poly<#a>) -> !poly.poly<#b>
  return
}

// -----

// expected-error@+1 {{a ring needs at least one modulus}}
#r = #poly.ring<N = 16, moduli = []>

// -----

#t = #poly.ring<N = 4, moduli = [256]>
func.func @f() {
  // expected-error@+1 {{'poly.constant' op needs N = 4 coefficients, got shape 'tensor<3xi64>'}}
  %0 = poly.constant dense<[1, 2, 3]> : tensor<3xi64> : !poly.poly<#t>
  return
}

// -----

#t = #poly.ring<N = 2, moduli = [256]>
func.func @f() {
  // expected-error@+1 {{'poly.constant' op coefficient 256 is outside [0, 256)}}
  %0 = poly.constant dense<[1, 256]> : tensor<2xi64> : !poly.poly<#t>
  return
}

// -----

#q = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op Galois element 4 is neither 0 (relinearization) nor an odd number below 2N = 32}}
  %0, %1 = poly.key_switch %c {galois_element = 4, special = array<i64: 353>, dnum = 1} : !poly.poly<#q>
  return
}

// -----

#q = #poly.ring<N = 16, moduli = [97, 256]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op needs a ring of NTT-friendly primes; 256 is not one}}
  %0, %1 = poly.key_switch %c {galois_element = 0, special = array<i64: 353>, dnum = 1} : !poly.poly<#q>
  return
}

// -----

#q = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op special modulus 113 is not an NTT-friendly prime}}
  %0, %1 = poly.key_switch %c {galois_element = 0, special = array<i64: 113>, dnum = 1} : !poly.poly<#q>
  return
}

// -----

#q = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op special prime 97 is also in Q}}
  %0, %1 = poly.key_switch %c {galois_element = 0, special = array<i64: 97>, dnum = 1} : !poly.poly<#q>
  return
}

// -----

#q = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op dnum = 3 is not in [1, |Q| = 2]}}
  %0, %1 = poly.key_switch %c {galois_element = 0, special = array<i64: 353>, dnum = 3} : !poly.poly<#q>
  return
}

// -----

#q = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op key_primes = 1 is below the ring's 2 primes}}
  %0, %1 = poly.key_switch %c {galois_element = 0, special = array<i64: 353>, dnum = 1, key_primes = 1} : !poly.poly<#q>
  return
}

// -----

// A key of three primes has at most three digits; at a level of two primes
// its digits keep their width (the second switch verifies).
#q = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op dnum = 4 is not in [1, |Q| = 3]}}
  %0, %1 = poly.key_switch %c {galois_element = 0, special = array<i64: 353>, dnum = 4, key_primes = 3} : !poly.poly<#q>
  %2, %3 = poly.key_switch %c {galois_element = 0, special = array<i64: 353>, dnum = 3, key_primes = 3} : !poly.poly<#q>
  return
}

// -----

#q = #poly.ring<N = 16, moduli = [97, 193]>
func.func @f(%c: !poly.poly<#q>) {
  // expected-error@+1 {{'poly.key_switch' op needs at least one special prime}}
  %0, %1 = poly.key_switch %c {galois_element = 0, special = array<i64>, dnum = 1} : !poly.poly<#q>
  return
}
