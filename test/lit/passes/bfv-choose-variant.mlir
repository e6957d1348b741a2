// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant | FileCheck %s
// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant=candidates=hps,lhps | FileCheck %s --check-prefix=LEVELED
// One candidate is the choice, recorded without pricing:
// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant=candidates=chps | FileCheck %s --check-prefix=ONLY
// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant=candidates=hps,lhps --bfv-to-poly --poly-to-rns | FileCheck %s --check-prefix=LOWERED
// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant=reserve-depth=16 | FileCheck %s --check-prefix=RESERVED

// Ten products at N = 2^14 over six 60-bit primes: the later products'
// dropped primes save more than compact HPS's cheaper products, so leveled
// HPS is cheapest, and its levels are set.
// CHECK: module attributes {bfv.variant = #bfv.variant<lhps>, bfv.variant_costs = {behz = {{[0-9.e+]+}} : f64, chps = {{[0-9.e+]+}} : f64, hps = {{[0-9.e+]+}} : f64, lhps = {{[0-9.e+]+}} : f64}}
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = {{[1-5]}} : i64}
// LEVELED: module attributes {bfv.variant = #bfv.variant<lhps>, bfv.variant_costs = {hps = {{[0-9.e+]+}} : f64, lhps = {{[0-9.e+]+}} : f64}}
// ONLY: module attributes {bfv.variant = #bfv.variant<chps>}
// ONLY-NOT: level
// LOWERED: #rns.basis<Q{{[1-5]}}P:
#params = #bfv.params<t = 65537, N = 16384, Q = [1152921504606748673, 1152921504606683137, 1152921504606584833, 1152921504605962241, 1152921504604979201, 1152921504600260609], P = [1152921504599080961], dnum = 6>
!ct = !bfv.ciphertext<#params, 2>
!ct3 = !bfv.ciphertext<#params, 3>
func.func @chain(%x: !ct, %y: !ct) -> !ct {
  %m0 = bfv.mul %x, %y : !ct -> !ct3
  %r0 = bfv.relinearize %m0 : !ct3 -> !ct
  %m1 = bfv.mul %r0, %y : !ct -> !ct3
  %r1 = bfv.relinearize %m1 : !ct3 -> !ct
  %m2 = bfv.mul %r1, %y : !ct -> !ct3
  %r2 = bfv.relinearize %m2 : !ct3 -> !ct
  %m3 = bfv.mul %r2, %y : !ct -> !ct3
  %r3 = bfv.relinearize %m3 : !ct3 -> !ct
  %m4 = bfv.mul %r3, %y : !ct -> !ct3
  %r4 = bfv.relinearize %m4 : !ct3 -> !ct
  %m5 = bfv.mul %r4, %y : !ct -> !ct3
  %r5 = bfv.relinearize %m5 : !ct3 -> !ct
  %m6 = bfv.mul %r5, %y : !ct -> !ct3
  %r6 = bfv.relinearize %m6 : !ct3 -> !ct
  %m7 = bfv.mul %r6, %y : !ct -> !ct3
  %r7 = bfv.relinearize %m7 : !ct3 -> !ct
  %m8 = bfv.mul %r7, %y : !ct -> !ct3
  %r8 = bfv.relinearize %m8 : !ct3 -> !ct
  %m9 = bfv.mul %r8, %y : !ct -> !ct3
  %r9 = bfv.relinearize %m9 : !ct3 -> !ct
  return %r9 : !ct
}

// -----

// One product of fresh operands: leveled HPS spends the output's spare
// budget on two primes, but at this size its roundings to Q_2 cost more than
// they save, so hps is cheaper. After rns-fuse, which the candidates go through,
// HPS's roundings into B and conversions back to Q are one kernel each, and
// so are compact HPS's switches of x into B and extensions to Q u B: compact
// HPS, whose product basis is smaller, is cheapest.
#p = #bfv.params<t = 65537, N = 16384, Q = [1152921504606748673, 1152921504606683137, 1152921504606584833, 1152921504605962241], P = [1152921504604979201], dnum = 4>
// CHECK: module attributes {bfv.variant = #bfv.variant<chps>
// LEVELED: module attributes {bfv.variant = #bfv.variant<hps>
// ONLY: module attributes {bfv.variant = #bfv.variant<chps>
// LOWERED: // {{[-]+}}
// LOWERED-NOT: Q{{[0-9]+}}P
// LOWERED: func.func @product
// RESERVED: func.func @product
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 3> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  return %0 : !bfv.ciphertext<#p, 3>
}

// -----

// One product and its relinearization at N = 2^15 over eleven primes and one
// special prime, (15, 660, 60). It needs about 70 of Q's 660 bits, so leveled
// HPS runs it on two primes, far cheaper than any variant on all of Q. With
// room reserved for 16 more products no budget is to spare, no prime can go
// (leveled HPS is HPS), and with eleven digits to switch, compact HPS's
// cheaper tensor wins, as measured.
#q = #bfv.params<t = 786433, N = 32768, Q = [1152921504606584833, 1152921504598720513, 1152921504597016577, 1152921504595968001, 1152921504595640321, 1152921504593412097, 1152921504592822273, 1152921504592429057, 1152921504589938689, 1152921504586530817, 1152921504585547777], P = [1152921504583647233], dnum = 11>
// CHECK: module attributes {bfv.variant = #bfv.variant<lhps>
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = 2 : i64}
// LEVELED: module attributes {bfv.variant = #bfv.variant<lhps>
// ONLY: module attributes {bfv.variant = #bfv.variant<chps>
// LOWERED: #rns.basis<Q2P:
// LOWERED: func.func @hmult
// RESERVED: module attributes {bfv.variant = #bfv.variant<chps>, bfv.variant_costs = {behz = {{[0-9.e+]+}} : f64, chps = {{[0-9.e+]+}} : f64, hps = [[HPS:[0-9.e+]+]] : f64, lhps = [[HPS]] : f64}}
// RESERVED-NOT: level
func.func @hmult(%x: !bfv.ciphertext<#q, 2>, %y: !bfv.ciphertext<#q, 2>) -> !bfv.ciphertext<#q, 2> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#q, 2> -> !bfv.ciphertext<#q, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#q, 3> -> !bfv.ciphertext<#q, 2>
  return %1 : !bfv.ciphertext<#q, 2>
}
