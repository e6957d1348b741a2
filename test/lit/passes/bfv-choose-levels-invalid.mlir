// RUN: ringfuse-opt %s --split-input-file --bfv-choose-levels --verify-diagnostics

// Levels are primes of Q, which parameter selection has not chosen yet.
// expected-error@+1 {{bfv-choose-levels needs chosen parameters (N and Q); run bfv-select-parameters first}}
module {
  func.func @f(%x: !bfv.ciphertext<#bfv.params<t = 65537>, 2>) -> !bfv.ciphertext<#bfv.params<t = 65537>, 3> {
    %0 = bfv.mul %x, %x : !bfv.ciphertext<#bfv.params<t = 65537>, 2> -> !bfv.ciphertext<#bfv.params<t = 65537>, 3>
    return %0 : !bfv.ciphertext<#bfv.params<t = 65537>, 3>
  }
}
