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

// expected-error@+1 {{t = 256 allows no batching at any N from 1024 to 131072: circuits compute slot by slot, which needs a prime t = 1 mod 2N (65537 batches up to N = 2^15, 786433 up to 2^17); a power of two never batches}}
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

// -----

// A circuit computes slot by slot, also without a slot op: with a t that
// never batches, x * y would decrypt to the polynomial product of the
// inputs, so it is refused rather than given coefficient semantics.
// expected-error@+1 {{t = 65536 allows no batching at any N from 1024 to 131072: circuits compute slot by slot}}
module {
  func.func @product(%x: !bfv.ciphertext<#bfv.params<t = 65536>, 2>, %y: !bfv.ciphertext<#bfv.params<t = 65536>, 2>) -> !bfv.ciphertext<#bfv.params<t = 65536>, 2> {
    %0 = bfv.mul %x, %y : !bfv.ciphertext<#bfv.params<t = 65536>, 2> -> !bfv.ciphertext<#bfv.params<t = 65536>, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#bfv.params<t = 65536>, 3> -> !bfv.ciphertext<#bfv.params<t = 65536>, 2>
    return %1 : !bfv.ciphertext<#bfv.params<t = 65536>, 2>
  }
}

// -----

// t = 17 = 2^4 + 1 batches only up to N = 8: at a fixed N = 4096 it does not.
// expected-error@+1 {{t = 17 allows no batching at N = 4096: circuits compute slot by slot}}
module {
  func.func @plain(%x: !bfv.ciphertext<#bfv.params<t = 17, N = 4096>, 2>, %w: !bfv.plaintext<#bfv.params<t = 17, N = 4096>>) -> !bfv.ciphertext<#bfv.params<t = 17, N = 4096>, 2> {
    %0 = bfv.mul_plain %x, %w : !bfv.ciphertext<#bfv.params<t = 17, N = 4096>, 2>, !bfv.plaintext<#bfv.params<t = 17, N = 4096>>
    return %0 : !bfv.ciphertext<#bfv.params<t = 17, N = 4096>, 2>
  }
}

// -----

// Given parameters are checked too.
// expected-error@+1 {{t = 256 allows no batching at N = 16: circuits compute slot by slot}}
module {
  func.func @given(%x: !bfv.ciphertext<#bfv.params<t = 256, N = 16, Q = [97, 193], P = [353]>, 2>) -> !bfv.ciphertext<#bfv.params<t = 256, N = 16, Q = [97, 193], P = [353]>, 2> {
    return %x : !bfv.ciphertext<#bfv.params<t = 256, N = 16, Q = [97, 193], P = [353]>, 2>
  }
}
