// RUN: ringfuse-opt %s --split-input-file --rns-assign-domains --verify-diagnostics

// The program ABI passes coefficient form: an evaluation-form argument is a
// valid rns function, but not one the pass can give a program (unless
// ringfuse.inputs marks it a prepared plaintext: 1).
#Q = #rns.basis<Q: [193, 257]>
// expected-error@+1 {{argument #0 is in evaluation form, but the program ABI passes polynomials in coefficient form (a prepared plaintext input excepted)}}
func.func @eval_argument(%x: !rns.poly<16, #Q, eval>) -> !rns.poly<16, #Q, coeff> {
  %0 = rns.intt %x : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  return %0 : !rns.poly<16, #Q, coeff>
}

// -----

#Q = #rns.basis<Q: [193, 257]>
// expected-error@+1 {{result #0 is in evaluation form, but the program ABI passes polynomials in coefficient form (a prepared plaintext input excepted)}}
func.func @eval_result(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, eval> {
  %0 = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  return %0 : !rns.poly<16, #Q, eval>
}

// -----

#q = #poly.ring<N = 16, moduli = [193, 257]>
// expected-error@+1 {{rns-assign-domains expects a function of rns polynomials (run poly-to-rns first); argument #0 is '!poly.poly<#poly.ring<N = 16, moduli = [193, 257]>>'}}
func.func @not_rns(%x: !poly.poly<#q>) -> !poly.poly<#q> {
  return %x : !poly.poly<#q>
}

// -----

// A call hides where its operands are used and in which domain its results
// come back.
#Q = #rns.basis<Q: [193, 257]>
func.func private @elsewhere(!rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff>
func.func @call(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  // expected-error@+1 {{'func.call' op has no domain rule in rns-assign-domains}}
  %0 = func.call @elsewhere(%x) : (!rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff>
  return %0 : !rns.poly<16, #Q, coeff>
}
