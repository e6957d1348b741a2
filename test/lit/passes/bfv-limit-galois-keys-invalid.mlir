// RUN: ringfuse-opt %s --bfv-limit-galois-keys=max-keys=2 --verify-diagnostics

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>

// Rotations by -1 (31 mod 32: five binary digits) and a row swap need at
// least 6 keys.
// expected-error@below {{the Galois-key budget (max-keys 2, max-bytes 0; 0 is no limit) is below what this circuit needs even with power-of-two rotations: 6 keys of 6144 bytes}}
module {
  func.func @f(%x: !ct) -> !ct {
    %a = bfv.rotate %x by -1 : !ct
    %b = bfv.rotate %x by 3 : !ct
    %c = bfv.rotate %x by 5 : !ct
    %s = bfv.add %a, %b : !ct
    %t = bfv.add %s, %c : !ct
    %w = bfv.swap_rows %t : !ct
    return %w : !ct
  }
}
