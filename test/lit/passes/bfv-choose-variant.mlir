// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant | FileCheck %s
// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant=candidates=hps,lhps | FileCheck %s --check-prefix=LEVELED
// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant=candidates=chps | FileCheck %s --check-prefix=ONLY
// RUN: ringfuse-opt %s --split-input-file --bfv-choose-variant=candidates=hps,lhps --bfv-to-poly=variant=auto --poly-to-rns=variant=auto | FileCheck %s --check-prefix=LOWERED

// Ten products at N = 2^14 over six 60-bit primes: the later products'
// dropped primes save more than compact HPS's cheaper products, so leveled
// HPS is cheapest, and its levels are set.
// CHECK: module attributes {ringfuse.variant = "lhps", ringfuse.variant_costs = {behz = {{[0-9.e+]+}} : f64, chps = {{[0-9.e+]+}} : f64, hps = {{[0-9.e+]+}} : f64, lhps = {{[0-9.e+]+}} : f64}}
// CHECK: bfv.mul %{{.*}}, %{{.*}} {level = {{[1-5]}} : i64}
// LEVELED: module attributes {ringfuse.variant = "lhps", ringfuse.variant_costs = {hps = {{[0-9.e+]+}} : f64, lhps = {{[0-9.e+]+}} : f64}}
// ONLY: module attributes {ringfuse.variant = "chps", ringfuse.variant_costs = {chps = {{[0-9.e+]+}} : f64}}
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

// One product of fresh operands: no prime can go, so leveled HPS is HPS (a
// tie, which goes to hps), and compact HPS, which saves a conversion, wins.
#p = #bfv.params<t = 65537, N = 16384, Q = [1152921504606748673, 1152921504606683137, 1152921504606584833, 1152921504605962241], P = [1152921504604979201], dnum = 4>
// CHECK: module attributes {ringfuse.variant = "chps"
// LEVELED: module attributes {ringfuse.variant = "hps"
// ONLY: module attributes {ringfuse.variant = "chps"
// LOWERED: // {{[-]+}}
// LOWERED-NOT: Q{{[0-9]+}}P
// LOWERED: func.func @product
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 3> {
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  return %0 : !bfv.ciphertext<#p, 3>
}
