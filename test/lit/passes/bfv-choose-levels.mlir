// RUN: ringfuse-opt %s --bfv-choose-levels | FileCheck %s
// RUN: ringfuse-opt %s --bfv-choose-levels=margin-bits=40 | FileCheck %s --check-prefix=WIDE

// x * y * x * y ... at t = 65537, N = 2^14 over four 60-bit primes. The noise
// estimates (bits of Q; log2 t = 16, log2(N)/2 = 7) are: fresh 27, each
// relinearized product +32. Rounding to fewer primes costs 16 + 7 + 1 = 24
// bits, and the margin is 16: a product may drop the primes whose bits fit
// in its noisier operand's noise minus 40.
#p = #bfv.params<t = 65537, N = 16384, Q = [1152921504606748673, 1152921504606683137, 1152921504606584833, 1152921504605962241], P = [1152921504604979201], dnum = 4>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// CHECK-LABEL: func.func @chain
// A 40-bit margin keeps Q's four primes until the last product (155 - 64).
// WIDE-LABEL: func.func @chain
// WIDE-COUNT-4: bfv.mul %{{.*}}, %{{.*}} :
// WIDE: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
func.func @chain(%x: !ct, %y: !ct) -> !ct {
  // Operand noise 27, then 59: nothing to drop.
  // CHECK: bfv.mul %{{.*}}, %{{.*}} :
  %0 = bfv.mul %x, %y : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  // CHECK: bfv.mul %{{.*}}, %{{.*}} :
  %2 = bfv.mul %1, %x : !ct -> !ct3
  %3 = bfv.relinearize %2 : !ct3 -> !ct
  // Noise 91 leaves 51 bits: less than a prime.
  // CHECK: bfv.mul %{{.*}}, %{{.*}} :
  %4 = bfv.mul %3, %y : !ct -> !ct3
  %5 = bfv.relinearize %4 : !ct3 -> !ct
  // Noise 123 leaves 83 bits: one 60-bit prime can go.
  // CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
  %6 = bfv.mul %5, %x : !ct -> !ct3
  %7 = bfv.relinearize %6 : !ct3 -> !ct
  // Noise 155 leaves 115 bits: still one prime, not two.
  // CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
  %8 = bfv.mul %7, %y : !ct -> !ct3
  %9 = bfv.relinearize %8 : !ct3 -> !ct
  return %9 : !ct
}

// A level given before is replaced by the pass's choice.
// CHECK-LABEL: func.func @given
// CHECK: bfv.mul %{{.*}}, %{{.*}} :
func.func @given(%x: !ct, %y: !ct) -> !ct3 {
  %0 = bfv.mul %x, %y {level = 1} : !ct -> !ct3
  return %0 : !ct3
}
