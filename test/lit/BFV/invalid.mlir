// Every bfv verifier message, one case each.
// RUN: ringfuse-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{plaintext modulus t must be at least 2, got 1}}
#p = #bfv.params<t = 1>

// -----

// expected-error@+1 {{plaintext modulus t must be below 2^63, got 9223372036854775808}}
#p = #bfv.params<t = 9223372036854775808>

// -----

// expected-error@+1 {{ring degree N must be a power of two in [2, 131072], got 12}}
#p = #bfv.params<t = 17, N = 12>

// -----

// expected-error@+1 {{ring degree N must be a power of two in [2, 131072], got 262144}}
#p = #bfv.params<t = 17, N = 262144>

// -----

// expected-error@+1 {{ciphertext modulus Q needs the ring degree N (its primes must be 1 mod 2N)}}
#p = #bfv.params<t = 17, Q = [97]>

// -----

// expected-error@+1 {{special modulus P needs a ciphertext modulus Q}}
#p = #bfv.params<t = 17, N = 16, P = [97]>

// -----

// expected-error@+1 {{Q entry 289 is not a prime}}
#p = #bfv.params<t = 17, N = 16, Q = [97, 289]>

// -----

// 2^61 + 65 is prime and 1 mod 32, but too wide for lazy reduction.
// expected-error@+1 {{Q prime 2305843009213694017 does not fit in 61 bits}}
#p = #bfv.params<t = 17, N = 16, Q = [2305843009213694017]>

// -----

// expected-error@+1 {{P prime 113 is not 1 mod 2N = 32, so it has no negacyclic NTT}}
#p = #bfv.params<t = 17, N = 16, Q = [97], P = [113]>

// -----

// expected-error@+1 {{Q prime 97 divides the plaintext modulus t = 194}}
#p = #bfv.params<t = 194, N = 16, Q = [97]>

// -----

// expected-error@+1 {{prime 97 appears more than once in Q and P}}
#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [97]>

// -----

// expected-error@+1 {{'N' appears twice}}
#p = #bfv.params<t = 17, N = 16, N = 32>

// -----

// expected-error@+1 {{unknown parameter 'q' (expected t, N, Q, P or dnum)}}
#p = #bfv.params<t = 17, q = [97]>

// -----

// expected-error@+1 {{#bfv.params needs the plaintext modulus 't'}}
#p = #bfv.params<N = 16>

// -----

// expected-error@+1 {{a ciphertext has 2 or 3 components, got 1}}
func.func private @f(!bfv.ciphertext<#bfv.params<t = 17>, 1>)

// -----

// expected-error@+1 {{a ciphertext has 2 or 3 components, got 4}}
func.func private @f(!bfv.ciphertext<#bfv.params<t = 17>, 4>)

// -----

#a = #bfv.params<t = 17>
#b = #bfv.params<t = 257>
func.func @f(%x: !bfv.ciphertext<#a, 2>, %y: !bfv.ciphertext<#b, 2>) {
  // expected-error@+1 {{'bfv.add' op operands have different parameters: #bfv.params<t = 17> vs #bfv.params<t = 257>}}
  %0 = "bfv.add"(%x, %y) : (!bfv.ciphertext<#a, 2>, !bfv.ciphertext<#b, 2>) -> !bfv.ciphertext<#a, 2>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 3>) {
  // expected-error@+1 {{'bfv.sub' op result type '!bfv.ciphertext<#bfv.params<t = 17>, 2>' differs from the expected '!bfv.ciphertext<#bfv.params<t = 17>, 3>'}}
  %0 = "bfv.sub"(%x, %y) : (!bfv.ciphertext<#p, 2>, !bfv.ciphertext<#p, 3>) -> !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.add' op result type '!bfv.ciphertext<#bfv.params<t = 17>, 3>' differs from the expected '!bfv.ciphertext<#bfv.params<t = 17>, 2>'}}
  %0 = "bfv.add"(%x, %x) : (!bfv.ciphertext<#p, 2>, !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 3>
  return
}

// -----

#p = #bfv.params<t = 17>
#q = #bfv.params<t = 19>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.negate' op result type '!bfv.ciphertext<#bfv.params<t = 19>, 2>' differs from the expected '!bfv.ciphertext<#bfv.params<t = 17>, 2>'}}
  %0 = "bfv.negate"(%x) : (!bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#q, 2>
  return
}

// -----

#a = #bfv.params<t = 17>
#b = #bfv.params<t = 17, N = 16>
func.func @f(%x: !bfv.ciphertext<#a, 2>, %y: !bfv.ciphertext<#b, 2>) {
  // expected-error@+1 {{'bfv.mul' op operands have different parameters: #bfv.params<t = 17> vs #bfv.params<t = 17, N = 16>}}
  %0 = "bfv.mul"(%x, %y) : (!bfv.ciphertext<#a, 2>, !bfv.ciphertext<#b, 2>) -> !bfv.ciphertext<#a, 3>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 3>, %y: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.mul' op multiplies 2-component ciphertexts, got one with 3 components; relinearize it first}}
  %0 = "bfv.mul"(%x, %y) : (!bfv.ciphertext<#p, 3>, !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 3>
  return
}

// -----

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.mul' op level 3 exceeds the 2 primes of Q}}
  %0 = bfv.mul %x, %x {level = 3} : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  return
}

// -----

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.mul' op attribute 'level' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %0 = bfv.mul %x, %x {level = 0} : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.mul' op result type '!bfv.ciphertext<#bfv.params<t = 17>, 2>' differs from the expected '!bfv.ciphertext<#bfv.params<t = 17>, 3>'}}
  %0 = bfv.mul %x, %x : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.relinearize' op expects a 3-component ciphertext, got 2 components}}
  %0 = bfv.relinearize %x : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 17>
#q = #bfv.params<t = 19>
func.func @f(%x: !bfv.ciphertext<#p, 3>) {
  // expected-error@+1 {{'bfv.relinearize' op result type '!bfv.ciphertext<#bfv.params<t = 19>, 2>' differs from the expected '!bfv.ciphertext<#bfv.params<t = 17>, 2>'}}
  %0 = bfv.relinearize %x : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#q, 2>
  return
}

// -----

#p = #bfv.params<t = 17>
#q = #bfv.params<t = 19>
func.func @f(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#q>) {
  // expected-error@+1 {{'bfv.add_plain' op ciphertext and plaintext have different parameters: #bfv.params<t = 17> vs #bfv.params<t = 19>}}
  %0 = bfv.add_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#q>
  return
}

// -----

#p = #bfv.params<t = 17>
#q = #bfv.params<t = 19>
func.func @f(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#q>) {
  // expected-error@+1 {{'bfv.sub_plain' op ciphertext and plaintext have different parameters}}
  %0 = bfv.sub_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#q>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) {
  // expected-error@+1 {{'bfv.mul_plain' op result type '!bfv.ciphertext<#bfv.params<t = 17>, 3>' differs from the expected '!bfv.ciphertext<#bfv.params<t = 17>, 2>'}}
  %0 = "bfv.mul_plain"(%x, %w) : (!bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 3>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.rotate' op rotates by 0 steps, which is no rotation}}
  %0 = bfv.rotate %x by 0 : !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 97, N = 16>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.rotate' op rotation by 8 steps is out of range: |steps| must be below the row length N/2 = 8}}
  %0 = bfv.rotate %x by 8 : !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 97, N = 16>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.rotate' op rotation by -8 steps is out of range: |steps| must be below the row length N/2 = 8}}
  %0 = bfv.rotate %x by -8 : !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f(%x: !bfv.ciphertext<#p, 3>) {
  // expected-error@+1 {{'bfv.rotate' op needs a 2-component ciphertext, got 3; relinearize it first}}
  %0 = bfv.rotate %x by 1 : !bfv.ciphertext<#p, 3>
  return
}

// -----

#p = #bfv.params<t = 256, N = 16>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.rotate' op needs batching (slots), but t = 256 is not a prime}}
  %0 = bfv.rotate %x by 1 : !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 65537, N = 16>
func.func @f(%x: !bfv.ciphertext<#p, 3>) {
  // expected-error@+1 {{'bfv.swap_rows' op needs a 2-component ciphertext, got 3; relinearize it first}}
  %0 = bfv.swap_rows %x : !bfv.ciphertext<#p, 3>
  return
}

// -----

#p = #bfv.params<t = 17, N = 16>
func.func @f(%x: !bfv.ciphertext<#p, 2>) {
  // expected-error@+1 {{'bfv.sum_slots' op needs batching (slots), but t = 17 is not 1 mod 2N = 32}}
  %0 = bfv.sum_slots %x : !bfv.ciphertext<#p, 2>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f() {
  // expected-error@+1 {{'bfv.encode' op value 17 is outside [0, t) for t = 17}}
  %0 = bfv.encode 17 : i64 -> !bfv.plaintext<#p>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f() {
  // expected-error@+1 {{'bfv.encode' op value -1 is outside [0, t) for t = 17}}
  %0 = bfv.encode dense<[3, -1]> : tensor<2xi64> -> !bfv.plaintext<#p>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f() {
  // expected-error@+1 {{'bfv.encode' op encodes a non-empty 1-D vector of slot values, got shape 'tensor<2x2xi64>'}}
  %0 = bfv.encode dense<[[1, 2], [3, 4]]> : tensor<2x2xi64> -> !bfv.plaintext<#p>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f() {
  // expected-error@+1 {{'bfv.encode' op encodes a non-empty 1-D vector of slot values, got shape 'tensor<0xi64>'}}
  %0 = bfv.encode dense<> : tensor<0xi64> -> !bfv.plaintext<#p>
  return
}

// -----

#p = #bfv.params<t = 97, N = 2>
func.func @f() {
  // expected-error@+1 {{'bfv.encode' op has 3 slot values but only N = 2 slots exist}}
  %0 = bfv.encode dense<[1, 2, 3]> : tensor<3xi64> -> !bfv.plaintext<#p>
  return
}

// -----

#p = #bfv.params<t = 256, N = 16>
func.func @f() {
  // expected-error@+1 {{'bfv.encode' op needs batching (slots), but t = 256 is not a prime}}
  %0 = bfv.encode dense<[1, 2]> : tensor<2xi64> -> !bfv.plaintext<#p>
  return
}

// -----

#p = #bfv.params<t = 17>
func.func @f() {
  // expected-error@+1 {{'bfv.encode' op attribute 'value' failed to satisfy constraint}}
  %0 = bfv.encode 1.5 : f32 -> !bfv.plaintext<#p>
  return
}

// -----

// expected-error@+1 {{dnum = 3 needs P and at most |Q| = 2 digits}}
#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353], dnum = 3>

// -----

#p = #bfv.params<t = 17>
func.func @f(%p: !bfv.plaintext<#p>) {
  // expected-error@+1 {{'bfv.rotate_plain' op rotates by 0 steps, which is no rotation}}
  %0 = bfv.rotate_plain %p by 0 : !bfv.plaintext<#p>
  return
}

// -----

#p = #bfv.params<t = 65537, N = 16>
func.func @f(%p: !bfv.plaintext<#p>) {
  // expected-error@+1 {{'bfv.rotate_plain' op rotation by 8 steps is out of range: |steps| must be below the row length N/2 = 8}}
  %0 = bfv.rotate_plain %p by 8 : !bfv.plaintext<#p>
  return
}
