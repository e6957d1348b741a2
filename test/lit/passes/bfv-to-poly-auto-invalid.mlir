// RUN: ringfuse-opt %s --bfv-to-poly=variant=auto --verify-diagnostics

// variant=auto lowers what bfv-choose-variant chose, and it has not run.
// expected-error@+1 {{variant=auto needs the choice of bfv-choose-variant (the module has no ringfuse.variant)}}
module {
  func.func @f(%x: !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>) -> !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>, 2>
  }
}
