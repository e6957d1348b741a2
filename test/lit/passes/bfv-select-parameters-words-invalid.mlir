// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters=word-bits=32 --verify-diagnostics
// RUN: not ringfuse-opt %s --split-input-file --bfv-select-parameters=word-bits=48 2>&1 | FileCheck %s --check-prefix=BITS

// BITS: error: bfv-select-parameters: word-bits must be 32, 64 or auto, got '48'

// A given Q with a prime of 2^30 or more cannot have 32-bit words.
// expected-error@+1 {{with 32-bit words every modulus is below 2^30, but 34359697409 is not}}
module {
  func.func @wide(%x: !bfv.ciphertext<#bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>, 2>) -> !bfv.ciphertext<#bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>, 2>
  }
}

// -----

// Nor a plaintext modulus of 2^30 or more (2^31 - 2^24 + 1 is prime and = 1 mod 2^25).
// expected-error@+1 {{with 32-bit words every modulus is below 2^30, but 2130706433 is not}}
module {
  func.func @t(%x: !bfv.ciphertext<#bfv.params<t = 2130706433>, 2>) -> !bfv.ciphertext<#bfv.params<t = 2130706433>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 2130706433>, 2>
  }
}
