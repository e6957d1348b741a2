// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters --verify-diagnostics

// Slots with t = 40961 cap N at 4096, which cannot hold a depth-3 product.
// expected-error@+1 {{t = 40961 allows slots only up to N = 4096, which cannot hold this circuit (multiplicative depth 3); choose a prime t = 1 mod 2N for a larger N}}
module {
  func.func @deep(%x: !bfv.ciphertext<#bfv.params<t = 40961>, 2>) -> !bfv.ciphertext<#bfv.params<t = 40961>, 2> {
    %r = bfv.rotate %x by 1 : !bfv.ciphertext<#bfv.params<t = 40961>, 2>
    %0 = bfv.mul %r, %r : !bfv.ciphertext<#bfv.params<t = 40961>, 2> -> !bfv.ciphertext<#bfv.params<t = 40961>, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#bfv.params<t = 40961>, 3> -> !bfv.ciphertext<#bfv.params<t = 40961>, 2>
    %2 = bfv.mul %1, %1 : !bfv.ciphertext<#bfv.params<t = 40961>, 2> -> !bfv.ciphertext<#bfv.params<t = 40961>, 3>
    %3 = bfv.relinearize %2 : !bfv.ciphertext<#bfv.params<t = 40961>, 3> -> !bfv.ciphertext<#bfv.params<t = 40961>, 2>
    %4 = bfv.mul %3, %3 : !bfv.ciphertext<#bfv.params<t = 40961>, 2> -> !bfv.ciphertext<#bfv.params<t = 40961>, 3>
    %5 = bfv.relinearize %4 : !bfv.ciphertext<#bfv.params<t = 40961>, 3> -> !bfv.ciphertext<#bfv.params<t = 40961>, 2>
    return %5 : !bfv.ciphertext<#bfv.params<t = 40961>, 2>
  }
}

// -----

// A given Q too small for the estimate is kept, with a warning.
// expected-warning@+1 {{the circuit's estimated noise needs about}}
module {
  func.func @small(%x: !bfv.ciphertext<#bfv.params<t = 65537, N = 16, Q = [97], P = [193]>, 2>) -> !bfv.ciphertext<#bfv.params<t = 65537, N = 16, Q = [97], P = [193]>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 65537, N = 16, Q = [97], P = [193]>, 2>
  }
}

// -----

// expected-error@+1 {{the circuit uses slots (rotations or vector constants), but t = 256 allows no batching: t must be a prime = 1 mod 2N}}
module {
  func.func @rotate(%x: !bfv.ciphertext<#bfv.params<t = 256>, 2>) -> !bfv.ciphertext<#bfv.params<t = 256>, 2> {
    %0 = bfv.rotate %x by 1 : !bfv.ciphertext<#bfv.params<t = 256>, 2>
    return %0 : !bfv.ciphertext<#bfv.params<t = 256>, 2>
  }
}

// -----

// The same without any slot op: ciphertext inputs are slot vectors too, so a
// batching t keeps slot semantics or fails, never silently switching to
// coefficients.
// expected-error@+1 {{t = 40961 allows slots only up to N = 4096}}
module {
  func.func @deep(%x: !bfv.ciphertext<#bfv.params<t = 40961>, 2>) -> !bfv.ciphertext<#bfv.params<t = 40961>, 2> {
    %0 = bfv.mul %x, %x : !bfv.ciphertext<#bfv.params<t = 40961>, 2> -> !bfv.ciphertext<#bfv.params<t = 40961>, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#bfv.params<t = 40961>, 3> -> !bfv.ciphertext<#bfv.params<t = 40961>, 2>
    %2 = bfv.mul %1, %1 : !bfv.ciphertext<#bfv.params<t = 40961>, 2> -> !bfv.ciphertext<#bfv.params<t = 40961>, 3>
    %3 = bfv.relinearize %2 : !bfv.ciphertext<#bfv.params<t = 40961>, 3> -> !bfv.ciphertext<#bfv.params<t = 40961>, 2>
    %4 = bfv.mul %3, %3 : !bfv.ciphertext<#bfv.params<t = 40961>, 2> -> !bfv.ciphertext<#bfv.params<t = 40961>, 3>
    %5 = bfv.relinearize %4 : !bfv.ciphertext<#bfv.params<t = 40961>, 3> -> !bfv.ciphertext<#bfv.params<t = 40961>, 2>
    return %5 : !bfv.ciphertext<#bfv.params<t = 40961>, 2>
  }
}

// -----

// t = 12289 = 3 * 2^12 + 1 batches only up to N = 2048, too small for any
// circuit at 128-bit security.
// expected-error@+1 {{t = 12289 allows slots only up to N = 2048, which cannot hold this circuit (multiplicative depth 0)}}
module {
  func.func @rotate(%x: !bfv.ciphertext<#bfv.params<t = 12289>, 2>) -> !bfv.ciphertext<#bfv.params<t = 12289>, 2> {
    %0 = bfv.rotate %x by 1 : !bfv.ciphertext<#bfv.params<t = 12289>, 2>
    return %0 : !bfv.ciphertext<#bfv.params<t = 12289>, 2>
  }
}
