// RUN: ringfuse-opt %s --split-input-file --verify-diagnostics

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op unknown library kernel 'fft'}}
  kernel.launch "fft" outs(%x : !kernel.buffer<16, #Q>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'convert' takes 1 inputs and 1 outputs, got 0 and 1}}
  kernel.launch "convert" outs(%x : !kernel.buffer<16, #Q>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'key_switch_inner_product' takes at least 1 inputs and 2 outputs, got 0 and 2}}
  kernel.launch "key_switch_inner_product" outs(%x, %x : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {key = 0}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'scale_round' needs the parameter 'divisor'}}
  kernel.launch "scale_round" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {numerator = 1}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op automorphism needs distinct input and output}}
  kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%x : !kernel.buffer<16, #Q>) {galois_element = 3}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // A misspelt or retired parameter is an error, not an attribute dropped.
  // expected-error@+1 {{'kernel.launch' op has the unknown attribute 'evaluation'}}
  kernel.launch "convert" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {evaluation}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'automorphism' needs the parameter 'galois_element'}}
  kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'key_switch_inner_product' needs the parameter 'key'}}
  kernel.launch "key_switch_inner_product" ins(%x : !kernel.buffer<16, #Q>) outs(%x, %y : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#R = #rns.basis<R: [97]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #R>) {
  // expected-error@+1 {{'kernel.elementwise' op operands must share one degree and basis}}
  kernel.elementwise ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #R>) {
  ^bb0(%a: i64):
    kernel.yield %a
  }
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.elementwise' op the body takes one residue per input (1), got 2}}
  kernel.elementwise ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {
  ^bb0(%a: i64, %b: i64):
    kernel.yield %a
  }
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.elementwise' op the body yields one residue per output (1), got 2}}
  kernel.elementwise ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {
  ^bb0(%a: i64):
    kernel.yield %a, %a
  }
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f() {
  // expected-error@+1 {{'kernel.constant' op needs 32 residues, got shape 'tensor<16xi64>'}}
  %c = kernel.constant dense<1> : tensor<16xi64> : !kernel.buffer<16, #Q>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#D = #rns.basis<D: [97]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.view' op the view must hold limbs [1, 2)}}
  %v = kernel.view %x limbs 1 to 2 : !kernel.buffer<16, #Q> -> !kernel.buffer<16, #D>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.view' op limbs [1, 3) are not a nonempty range of 2}}
  %v = kernel.view %x limbs 1 to 3 : !kernel.buffer<16, #Q> -> !kernel.buffer<16, #Q>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @transform_on_convert(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'convert' takes no 'transform'}}
  kernel.launch "convert" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {transform = #rns.transform<ntt, logN1 = 0, radix = 4, ot = 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @transform_dgt(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_forward' runs the ntt, got #rns.transform<dgt, logN1 = 1, radix = 0, ot = 0>}}
  kernel.launch "ntt_forward" outs(%x : !kernel.buffer<16, #Q>) {transform = #rns.transform<dgt, logN1 = 1, radix = 0, ot = 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @transform_ntt_on_dgt(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'dgt_inverse' runs the dgt, got #rns.transform<ntt, logN1 = 0, radix = 4, ot = 0>}}
  kernel.launch "dgt_inverse" outs(%x : !kernel.buffer<16, #Q>) {transform = #rns.transform<ntt, logN1 = 0, radix = 4, ot = 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @dgt_with_an_input(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'dgt_forward' takes 0 inputs and 1 outputs, got 1 and 1}}
  kernel.launch "dgt_forward" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @transform_too_many_stages(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op cannot run #rns.transform<ntt, logN1 = 4, radix = 4, ot = 0> on '!kernel.buffer<16, #rns.basis<Q: [97, 193]>>': unsupported NTT shape: logN1 must leave a row step}}
  kernel.launch "ntt_forward" outs(%x : !kernel.buffer<16, #Q>) {transform = #rns.transform<ntt, logN1 = 4, radix = 4, ot = 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'automorphism' takes no 'method'}}
  kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {galois_element = 3 : i64, method = 2 : i32}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353, 449]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #B>) {
  // expected-error@+1 {{'kernel.launch' op 'convert' takes no 'floor'}}
  kernel.launch "convert" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #B>) {floor}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.concurrent' op needs at least two launches, got 1}}
  kernel.concurrent {
    kernel.launch "ntt_forward" outs(%x : !kernel.buffer<16, #Q>)
  }
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.concurrent' op holds library launches only, got 'kernel.elementwise'}}
  kernel.concurrent {
    kernel.launch "ntt_forward" outs(%x : !kernel.buffer<16, #Q>)
    kernel.elementwise ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {
    ^bb0(%a: i64):
      kernel.yield %a
    }
  }
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !kernel.buffer<16, #Q>) attributes {kernel.slots = 1} {
  %a = kernel.alloc {slot = 0} : !kernel.buffer<16, #B>
  %b = kernel.alloc {slot = 0} : !kernel.buffer<16, #B>
  // Two allocations of one slot are one buffer.
  // expected-error@+1 {{'kernel.concurrent' op launches 0 and 1 share a buffer that one of them writes}}
  kernel.concurrent {
    kernel.launch "convert" ins(%x : !kernel.buffer<16, #Q>) outs(%a : !kernel.buffer<16, #B>)
    kernel.launch "convert" ins(%x : !kernel.buffer<16, #Q>) outs(%b : !kernel.buffer<16, #B>)
  }
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !kernel.buffer<16, #QB>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op a fast floor fuses no conversion (via #rns.basis<B: [353]>)}}
  kernel.launch "scale_round" ins(%x : !kernel.buffer<16, #QB>) outs(%y : !kernel.buffer<16, #Q>) {numerator = 1, divisor = #Q, floor, via = #B}
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !kernel.buffer<16, #QB>, %y: !kernel.buffer<16, #B>) {
  // expected-error@+1 {{'kernel.launch' op the output's basis #rns.basis<B: [353]> converts nothing: each of its moduli is in via #rns.basis<B: [353]>}}
  kernel.launch "scale_round" ins(%x : !kernel.buffer<16, #QB>) outs(%y : !kernel.buffer<16, #B>) {numerator = 1, divisor = #Q, via = #B}
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !kernel.buffer<16, #QB>, %c: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'scale_round_add' takes no 'via'}}
  kernel.launch "scale_round_add" ins(%x, %c : !kernel.buffer<16, #QB>, !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {numerator = 1, divisor = #Q, via = #B}
  return
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !kernel.buffer<16, #QB>, %c: !kernel.buffer<16, #QB>, %y: !kernel.buffer<16, #B>) {
  // expected-error@+1 {{'kernel.launch' op the addend's basis #rns.basis<QB: [97, 193, 353]> must be the output's, #rns.basis<B: [353]>}}
  kernel.launch "scale_round_add" ins(%x, %c : !kernel.buffer<16, #QB>, !kernel.buffer<16, #QB>) outs(%y : !kernel.buffer<16, #B>) {numerator = 1, divisor = #Q}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'scale_round' takes 1 inputs and 1 outputs, got 3 and 1}}
  kernel.launch "scale_round" ins(%x, %x, %x : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {numerator = 1, divisor = #Q}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #B>) {
  // expected-error@+1 {{'kernel.launch' op 'convert' takes no 'via'}}
  kernel.launch "convert" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #B>) {via = #B}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @inverse_from_input(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_inverse' takes 0 inputs and 1 outputs, got 1 and 1}}
  kernel.launch "ntt_inverse" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#QP = #rns.basis<QP: [97, 193, 353]>
func.func @forward_from_two_limbs(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op transforms every limb from one limb of the same degree, got '!kernel.buffer<16, #rns.basis<Q: [97, 193]>>' for '!kernel.buffer<16, #rns.basis<QP: [97, 193, 353]>>'}}
  kernel.launch "ntt_forward_from" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #QP>)
  return
}

// -----

#W = #rns.basis<W: [1601]>
#QP = #rns.basis<QP: [97, 193, 353]>
func.func @forward_from_wide_prime(%x: !kernel.buffer<16, #W>, %y: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op needs the input's prime below 8 times each of the output's, got 1601 for 97}}
  kernel.launch "ntt_forward_from" ins(%x : !kernel.buffer<16, #W>) outs(%y : !kernel.buffer<16, #QP>)
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
func.func @key_switch_outputs(%d: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_key_switch' takes at least 1 inputs and one output per input and 2 outputs, got 1 and 2}}
  kernel.launch "ntt_key_switch" ins(%d : !kernel.buffer<16, #QP>) outs(%k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
func.func @key_switch_no_key(%d: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_key_switch' needs the parameter 'key'}}
  kernel.launch "ntt_key_switch" ins(%d : !kernel.buffer<16, #QP>) outs(%d, %k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#QP = #rns.basis<QP: [97, 193, 353]>
func.func @key_switch_scratch_basis(%d: !kernel.buffer<16, #QP>, %s: !kernel.buffer<16, #Q>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op scratch buffers and sums must all be '!kernel.buffer<16, #rns.basis<QP: [97, 193, 353]>>', got '!kernel.buffer<16, #rns.basis<Q: [97, 193]>>'}}
  kernel.launch "ntt_key_switch" ins(%d : !kernel.buffer<16, #QP>) outs(%s, %k0, %k1 : !kernel.buffer<16, #Q>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#QP = #rns.basis<QP: [97, 193, 353]>
func.func @key_switch_two_limb_digit(%d: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op transforms every limb from one limb of the same degree, got '!kernel.buffer<16, #rns.basis<Q: [97, 193]>>' for '!kernel.buffer<16, #rns.basis<QP: [97, 193, 353]>>'}}
  kernel.launch "ntt_key_switch" ins(%d : !kernel.buffer<16, #Q>) outs(%s, %k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
func.func @key_switch_digit_overwritten(%d0: !kernel.buffer<16, #QP>, %d1: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op digit 0 is also output 1}}
  kernel.launch "ntt_key_switch" ins(%d0, %d1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) outs(%d1, %d0, %k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
func.func @key_switch_one_sum(%d: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op needs distinct sums}}
  kernel.launch "ntt_key_switch" ins(%d : !kernel.buffer<16, #QP>) outs(%d, %k0, %k0 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
func.func @key_switch_radix8(%d: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op cannot run #rns.transform<ntt, logN1 = 0, radix = 8, ot = 0>: a fused NTT runs radix 4, not 8}}
  kernel.launch "ntt_key_switch" ins(%d : !kernel.buffer<16, #QP>) outs(%d, %k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64, transform = #rns.transform<ntt, logN1 = 0, radix = 8, ot = 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_missing(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_products' needs the parameter 'products'}}
  kernel.launch "ntt_products" ins(%a : !kernel.buffer<16, #Q>) outs(%a, %s : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>)
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_outputs(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_products' takes 1 to 4 inputs and one output per input and one per sum (2), got 1 and 2}}
  kernel.launch "ntt_products" ins(%a : !kernel.buffer<16, #Q>) outs(%a, %s : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0, 1, 0, 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_not_triples(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'products' holds (output, factor, factor) triples, 1 to 8 of them, got 4 integers}}
  kernel.launch "ntt_products" ins(%a : !kernel.buffer<16, #Q>) outs(%a, %s : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0, 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_skip_a_sum(%a: !kernel.buffer<16, #Q>, %s0: !kernel.buffer<16, #Q>, %s1: !kernel.buffer<16, #Q>, %s2: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op product 1 is for sum 2, not 0 or the next (sums come in order, from 0, none skipped)}}
  kernel.launch "ntt_products" ins(%a : !kernel.buffer<16, #Q>) outs(%a, %s0, %s1, %s2 : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0, 2, 0, 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_factor_range(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op product 0 names factors 0 and 1 of 1}}
  kernel.launch "ntt_products" ins(%a : !kernel.buffer<16, #Q>) outs(%a, %s : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 1>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_factor_overwritten(%a: !kernel.buffer<16, #Q>, %b: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op factor 0 is also output 2}}
  kernel.launch "ntt_products" ins(%a, %b : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) outs(%a, %b, %a : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 1>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_same_sum(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op needs distinct sums}}
  kernel.launch "ntt_products" ins(%a : !kernel.buffer<16, #Q>) outs(%a, %s, %s : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0, 1, 0, 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_radix8(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op cannot run #rns.transform<ntt, logN1 = 0, radix = 8, ot = 0>: a fused NTT runs radix 4, not 8}}
  kernel.launch "ntt_products" ins(%a : !kernel.buffer<16, #Q>) outs(%a, %s : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0>, transform = #rns.transform<ntt, logN1 = 0, radix = 8, ot = 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @products_elsewhere(%a: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_forward' takes no 'products'}}
  kernel.launch "ntt_forward" outs(%a : !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0>}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
func.func @addend_elsewhere(%x: !kernel.buffer<16, #QP>, %y: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op 'ntt_inverse' takes no 'addend'}}
  kernel.launch "ntt_inverse" outs(%x : !kernel.buffer<16, #QP>) {addend}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
func.func @addend_scales(%d: !kernel.buffer<16, #QP>, %e: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // The scales are one word per limb: a buffer of degree 1.
  // expected-error@+1 {{'kernel.launch' op the addends' scales must be a buffer of degree 1 over #rns.basis<Q: [97, 193]>, got '!kernel.buffer<16, #rns.basis<Q: [97, 193]>>'}}
  kernel.launch "key_switch_inner_product" ins(%d, %e, %e, %s : !kernel.buffer<16, #QP>, !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) outs(%k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {addend, key = 0 : i64}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
func.func @addend_basis(%d: !kernel.buffer<16, #QP>, %e: !kernel.buffer<16, #QP>, %s: !kernel.buffer<1, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>, %t: !kernel.buffer<16, #QP>) {
  // The addends cover Q's primes, not P's.
  // expected-error@+1 {{'kernel.launch' op the addends must be buffers over the first moduli of the sums' basis #rns.basis<QP: [97, 193, 353]>}}
  kernel.launch "ntt_key_switch" ins(%d, %e, %e, %s : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<1, #QP>) outs(%t, %k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {addend, key = 0 : i64}
  return
}

// -----

// X -> X^g is an automorphism only for odd g.
#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'galois_element' is 4, not a Galois element: an odd number below 2N = 32}}
  kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {galois_element = 4}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'galois_element' is 33, not a Galois element: an odd number below 2N = 32}}
  kernel.launch "automorphism_evaluation" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {galois_element = 33}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#R = #rns.basis<R: [97]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #R>) {
  // expected-error@+1 {{'kernel.launch' op automorphism maps a buffer to one of its type, got '!kernel.buffer<16, #rns.basis<Q: [97, 193]>>' to '!kernel.buffer<16, #rns.basis<R: [97]>>'}}
  kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #R>) {galois_element = 3}
  return
}

// -----

// A key is the relinearization key (0) or a rotation's, named by its element.
#QP = #rns.basis<QP: [97, 193, 353]>
func.func @f(%d: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op 'key' is 2, not 0 (relinearization) or a Galois element: an odd number below 2N = 32}}
  kernel.launch "key_switch_inner_product" ins(%d : !kernel.buffer<16, #QP>) outs(%k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 2}
  return
}

// -----

#QP = #rns.basis<QP: [97, 193, 353]>
func.func @f(%d: !kernel.buffer<16, #QP>, %s: !kernel.buffer<16, #QP>, %k0: !kernel.buffer<16, #QP>, %k1: !kernel.buffer<16, #QP>) {
  // expected-error@+1 {{'kernel.launch' op 'key' is 64, not 0 (relinearization) or a Galois element: an odd number below 2N = 32}}
  kernel.launch "ntt_key_switch" ins(%d : !kernel.buffer<16, #QP>) outs(%s, %k0, %k1 : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 64}
  return
}

// -----

// The emitter indexes a mulconst's table by limb: one residue per limb.
#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  kernel.elementwise ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {
  ^bb0(%a: i64):
    // expected-error@+1 {{'kernel.mulconst' op needs one residue per limb of the kernel's basis (2), got 1}}
    %0 = kernel.mulconst %a by [3]
    kernel.yield %0
  }
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) {
  kernel.elementwise ins(%x : !kernel.buffer<16, #Q>) outs(%y : !kernel.buffer<16, #Q>) {
  ^bb0(%a: i64):
    // expected-error@+1 {{'kernel.mulconst' op residue 200 of limb 1 is not in [0, 193)}}
    %0 = kernel.mulconst %a by [3, 200]
    kernel.yield %0
  }
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f() {
  // expected-error@+1 {{'kernel.constant' op residue 5 (97) is not in [0, 97)}}
  %c = kernel.constant dense<[0, 1, 2, 3, 4, 97, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 96, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, -1]> : tensor<32xi64> : !kernel.buffer<16, #Q>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f() {
  // expected-error@+1 {{'kernel.constant' op residue 31 (-1) is not in [0, 193)}}
  %c = kernel.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 96, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, -1]> : tensor<32xi64> : !kernel.buffer<16, #Q>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @sums_outputs(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'sum_of_products' takes 1 to 256 inputs and one output per sum (2), got 1 and 1}}
  kernel.launch "sum_of_products" ins(%a : !kernel.buffer<16, #Q>) outs(%s : !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0, 1, 0, 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @sums_factor_out_of_range(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op product 0 names factors 0 and 1 of 1}}
  kernel.launch "sum_of_products" ins(%a : !kernel.buffer<16, #Q>) outs(%s : !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 1>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#P = #rns.basis<P: [353]>
func.func @sums_mixed_types(%a: !kernel.buffer<16, #Q>, %b: !kernel.buffer<16, #P>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op factors and sums must all be '!kernel.buffer<16, #rns.basis<Q: [97, 193]>>', got '!kernel.buffer<16, #rns.basis<P: [353]>>'}}
  kernel.launch "sum_of_products" ins(%a, %b : !kernel.buffer<16, #Q>, !kernel.buffer<16, #P>) outs(%s : !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 1>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @sums_in_place(%a: !kernel.buffer<16, #Q>, %b: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op sum 0 is also a factor}}
  kernel.launch "sum_of_products" ins(%a, %b : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) outs(%b : !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 1>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @sums_twice(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op needs distinct sums}}
  kernel.launch "sum_of_products" ins(%a : !kernel.buffer<16, #Q>) outs(%s, %s : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) {products = array<i32: 0, 0, 0, 1, 0, 0>}
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @accumulate_elsewhere(%a: !kernel.buffer<16, #Q>, %s: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.launch' op 'convert' takes no 'accumulate'}}
  kernel.launch "convert" ins(%a : !kernel.buffer<16, #Q>) outs(%s : !kernel.buffer<16, #Q>) {accumulate}
  return
}
