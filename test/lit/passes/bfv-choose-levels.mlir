// RUN: ringfuse-opt %s --bfv-choose-levels | FileCheck %s
// RUN: ringfuse-opt %s --bfv-choose-levels=reserve-depth=1 | FileCheck %s --check-prefix=RESERVE1
// RUN: ringfuse-opt %s --bfv-choose-levels=output-margin-bits=42 | FileCheck %s --check-prefix=RESERVE1
// RUN: ringfuse-opt %s --bfv-choose-levels=reserve-depth=2 | FileCheck %s --check-prefix=RESERVE2
// RUN: ringfuse-opt %s --bfv-choose-levels="reserve-depth=2 margin-bits=40" | FileCheck %s --check-prefix=WIDE

// x * y * x * y ... at t = 65537, N = 2^14 over four 60-bit primes (Q of 240
// bits). The noise estimates (bits of Q; log2 t = 16, log2(N)/2 = 7) are:
// fresh 27, each product +31 and its relinearization +1. Rounding to Q_l
// costs 16 + 7 + 1 = 24 bits at Q_l's scale, 24 + 60 k at Q's once k primes
// are dropped. Every output keeps 10 bits (output-margin-bits): its noise
// may reach 230, less 32 per reserved product.
#p = #bfv.params<t = 65537, N = 16384, Q = [1152921504606748673, 1152921504606683137, 1152921504606584833, 1152921504605962241], P = [1152921504604979201], dnum = 4>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// The products' allowances (the most operand noise each may have after its
// rounding) are 70, 102, 134, 166 and 198. The first product's operands
// (27) could take a rounding noise of 69 bits: 24 + 45, less than a prime.
// The second's (59) take 84 (one prime) and keep their product within 102
// + 31; its result then carries 116 + 1, and so on: 3, 3, 2, 2.
// CHECK-LABEL: func.func @chain
// CHECK: bfv.mul %{{.*}}, %{{.*}} :
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 2 : i64}
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 2 : i64}
// One product reserved: allowances 32 bits lower, each product's level one
// step later.
// RESERVE1-LABEL: func.func @chain
// RESERVE1-COUNT-2: bfv.mul %{{.*}}, %{{.*}} :
// RESERVE1: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
// RESERVE1: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
// RESERVE1: bfv.mul %{{.*}}, %{{.*}} {level = 2 : i64}
// Two reserved: no budget to spare (the estimate of 192 bits, plus 64,
// exceeds 230). The products drop only the primes their operands' noise
// hides with the 16-bit margin: noise 123 and 155 leave 83 and 115 bits, one
// prime each.
// RESERVE2-LABEL: func.func @chain
// RESERVE2-COUNT-3: bfv.mul %{{.*}}, %{{.*}} :
// RESERVE2: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
// RESERVE2: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
// A 40-bit margin keeps Q's four primes until the last product (155 - 64).
// WIDE-LABEL: func.func @chain
// WIDE-COUNT-4: bfv.mul %{{.*}}, %{{.*}} :
// WIDE: bfv.mul %{{.*}}, %{{.*}} {level = 3 : i64}
func.func @chain(%x: !ct, %y: !ct) -> !ct {
  %0 = bfv.mul %x, %y : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  %2 = bfv.mul %1, %x : !ct -> !ct3
  %3 = bfv.relinearize %2 : !ct3 -> !ct
  %4 = bfv.mul %3, %y : !ct -> !ct3
  %5 = bfv.relinearize %4 : !ct3 -> !ct
  %6 = bfv.mul %5, %x : !ct -> !ct3
  %7 = bfv.relinearize %6 : !ct3 -> !ct
  %8 = bfv.mul %7, %y : !ct -> !ct3
  %9 = bfv.relinearize %8 : !ct3 -> !ct
  return %9 : !ct
}

// A sum's allowance is shared by its terms in proportion to their
// estimates: x y + x x (59 + 1 bit) times y may carry 198 before its
// product, so each term 197 after its relinearization, and each of the
// first products 165 after its rounding. Their operands (27) take 144 bits
// of rounding noise, two primes, as does the last product (177, allowed
// 198).
// CHECK-LABEL: func.func @sum
// CHECK-COUNT-3: bfv.mul %{{.*}}, %{{.*}} {level = 2 : i64}
func.func @sum(%x: !ct, %y: !ct) -> !ct {
  %0 = bfv.mul %x, %y : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  %2 = bfv.mul %x, %x : !ct -> !ct3
  %3 = bfv.relinearize %2 : !ct3 -> !ct
  %4 = bfv.add %1, %3 : !ct
  %5 = bfv.mul %4, %y : !ct -> !ct3
  %6 = bfv.relinearize %5 : !ct3 -> !ct
  return %6 : !ct
}

// A level given before is replaced by the pass's choice: the one product
// (27 bits) may carry 199 before it, two primes' rounding.
// CHECK-LABEL: func.func @given
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 2 : i64}
// A value no output uses spends nothing: only the margin rule applies.
// CHECK-LABEL: func.func @unused
// CHECK: bfv.mul %{{.*}}, %{{.*}} :
func.func @given(%x: !ct, %y: !ct) -> !ct3 {
  %0 = bfv.mul %x, %y {level = 1} : !ct -> !ct3
  return %0 : !ct3
}

func.func @unused(%x: !ct, %y: !ct) -> !ct {
  %0 = bfv.mul %x, %y : !ct -> !ct3
  return %x : !ct
}
