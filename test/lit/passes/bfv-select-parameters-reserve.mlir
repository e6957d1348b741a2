// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters=reserve-depth=2 --verify-diagnostics | FileCheck %s

// One multiplication at t = 65537 needs about 70 bits (without a reserve,
// two 35-bit primes at N = 4096: bfv-select-parameters.mlir). Room for two
// more products by fresh ciphertexts, about 31 bits each, asks for about 130:
// more than N = 4096 allows, so three primes at N = 8192.
// CHECK: #params = #bfv.params<t = 65537, N = 8192, Q = [9007199254429697, 9007199254364161, 9007199254331393], P = [9007199253921793], dnum = 3>
#p = #bfv.params<t = 65537>
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// -----

// A given Q that holds the product (the parameters chosen above without a
// reserve) but not the reserve is kept, with a warning.
#p = #bfv.params<t = 65537, N = 4096, Q = [34359697409, 34359451649], P = [34359410689], dnum = 2>
// expected-warning@+1 {{the circuit's estimated noise needs about 130 bits of Q, but the given Q has 70; outputs may not decrypt}}
module {
  func.func @given(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
    %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
    return %1 : !bfv.ciphertext<#p, 2>
  }
}
