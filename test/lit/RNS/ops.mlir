// Every rns op round-trips through the custom and the generic form.
// RUN: ringfuse-opt %s | ringfuse-opt | FileCheck %s
// RUN: ringfuse-opt %s --mlir-print-op-generic | ringfuse-opt | FileCheck %s

// CHECK-DAG: #[[Q:.*]] = #rns.basis<Q: [97, 193]>
// CHECK-DAG: #[[B:.*]] = #rns.basis<B: [353, 449]>
// CHECK-DAG: #[[QB:.*]] = #rns.basis<QB: [97, 193, 353, 449]>
// CHECK-DAG: #[[T:.*]] = #rns.basis<T: [65537]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353, 449]>
#QB = #rns.basis<QB: [97, 193, 353, 449]>
#P = #rns.basis<P: [577]>
#QP = #rns.basis<QP: [97, 193, 577]>
#D1 = #rns.basis<D1: [193]>
#T = #rns.basis<T: [65537]>

// CHECK-LABEL: func.func @tensor_and_rescale
func.func @tensor_and_rescale(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  // CHECK: %[[L:.*]] = rns.convert %{{.*}} exact : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[QB]], coeff>
  %l = rns.convert %x exact : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #QB, coeff>
  // CHECK: %[[E:.*]] = rns.ntt %[[L]] : !rns.poly<16, #[[QB]], coeff> -> !rns.poly<16, #[[QB]], eval>
  %e = rns.ntt %l : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  // CHECK: rns.mul %[[E]], %[[E]] : !rns.poly<16, #[[QB]], eval>
  %m = rns.mul %e, %e : !rns.poly<16, #QB, eval>
  // CHECK: rns.add
  %a = rns.add %m, %e : !rns.poly<16, #QB, eval>
  // CHECK: rns.sub
  %s = rns.sub %a, %m : !rns.poly<16, #QB, eval>
  // CHECK: rns.neg
  %n = rns.neg %s : !rns.poly<16, #QB, eval>
  // CHECK: rns.automorphism %{{.*}} by 5 : !rns.poly<16, #[[QB]], eval>
  %rotated = rns.automorphism %n by 5 : !rns.poly<16, #QB, eval>
  // CHECK: rns.mul_scalar %{{.*}}, 123456789012345678901234567890 : !rns.poly<16, #[[QB]], eval>
  %k = rns.mul_scalar %rotated, 123456789012345678901234567890 : !rns.poly<16, #QB, eval>
  // CHECK: rns.intt %{{.*}} : !rns.poly<16, #[[QB]], eval> -> !rns.poly<16, #[[QB]], coeff>
  %c = rns.intt %k : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  // CHECK: rns.scale_round %{{.*}} by 65537 over #[[Q]] : !rns.poly<16, #[[QB]], coeff> -> !rns.poly<16, #[[B]], coeff>
  %r = rns.scale_round %c by 65537 over #Q : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  // CHECK: rns.convert %{{.*}} exact : !rns.poly<16, #[[B]], coeff> -> !rns.poly<16, #[[Q]], coeff>
  %back = rns.convert %r exact : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
  // The two fused (rns-fuse):
  // CHECK: rns.scale_round %{{.*}} by 65537 over #[[Q]] via #[[B]] : !rns.poly<16, #[[QB]], coeff> -> !rns.poly<16, #[[Q]], coeff>
  %fused = rns.scale_round %c by 65537 over #Q via #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  // A modulus switch into B extended to Q u B (compact HPS), B's limb kept:
  // CHECK: rns.scale_round %{{.*}} by 158497 over #[[Q]] via #[[B]] : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[QB]], coeff>
  %extended = rns.scale_round %back by 158497 over #Q via #B : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #QB, coeff>
  // BEHZ's kernels: SmMRq, the fast floor, Shenoy-Kumaresan (the default
  // method, fast, is not printed).
  // CHECK: rns.convert %{{.*}} montgomery : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[QB]], coeff>
  %mont = rns.convert %back montgomery : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #QB, coeff>
  // CHECK: rns.scale_round %{{.*}} by 65537 over #[[Q]] floor : !rns.poly<16, #[[QB]], coeff> -> !rns.poly<16, #[[B]], coeff>
  %f = rns.scale_round %mont by 65537 over #Q floor : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  // CHECK: rns.convert %{{.*}} shenoy_kumaresan : !rns.poly<16, #[[B]], coeff> -> !rns.poly<16, #[[Q]], coeff>
  %sk = rns.convert %f shenoy_kumaresan : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
  // CHECK: rns.convert %{{.*}} : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[QB]], coeff>
  %fast = rns.convert %sk fast : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #QB, coeff>
  // CHECK: rns.automorphism %{{.*}} by 3 : !rns.poly<16, #[[Q]], coeff>
  %g = rns.automorphism %back by 3 : !rns.poly<16, #Q, coeff>
  return %g : !rns.poly<16, #Q, coeff>
}

// CHECK-LABEL: func.func @key_switching
func.func @key_switching(%c: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  // CHECK: rns.extract %{{.*}} limbs 1 to 2 : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #D1, coeff>
  %d = rns.extract %c limbs 1 to 2 : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #D1, coeff>
  // CHECK: rns.convert %{{.*}} : !rns.poly<16, #D1, coeff> -> !rns.poly<16, #QP, coeff>
  %u = rns.convert %d : !rns.poly<16, #D1, coeff> -> !rns.poly<16, #QP, coeff>
  %f = rns.ntt %u : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  // CHECK: rns.key_switch_inner_product %{{.*}}, %{{.*}} {key = 0 : i64} : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  %k0, %k1 = rns.key_switch_inner_product %f, %f {key = 0} : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  %i = rns.intt %k0 : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, coeff>
  // CHECK: rns.scale_round %{{.*}} by 1 over #P
  %down = rns.scale_round %i by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  return %down : !rns.poly<16, #Q, coeff>
}

// CHECK-LABEL: func.func @plaintexts
func.func @plaintexts(%c: !rns.poly<2, #rns.basis<Q2: [97, 193]>, coeff>) -> !rns.poly<2, #rns.basis<Q2: [97, 193]>, coeff> {
  // CHECK: rns.constant dense<[5, 65536]> : tensor<2xi64> : !rns.poly<2, #[[T]], coeff>
  %m = rns.constant dense<[5, 65536]> : tensor<2xi64> : !rns.poly<2, #T, coeff>
  // CHECK: rns.scale_up %{{.*}} : !rns.poly<2, #[[T]], coeff> -> !rns.poly<2, #Q2, coeff>
  %s = rns.scale_up %m : !rns.poly<2, #T, coeff> -> !rns.poly<2, #rns.basis<Q2: [97, 193]>, coeff>
  %a = rns.add %c, %s : !rns.poly<2, #rns.basis<Q2: [97, 193]>, coeff>
  return %a : !rns.poly<2, #rns.basis<Q2: [97, 193]>, coeff>
}

// A chosen transform shape round-trips on ntt and intt.
// CHECK-LABEL: func.func @chosen_shapes
// CHECK: rns.ntt %{{.*}} {transform = #rns.transform<ntt, logN1 = 6, radix = 8, ot = 2>}
// CHECK: rns.intt %{{.*}} {transform = #rns.transform<dgt, logN1 = 5, radix = 0, ot = 0>}
func.func @chosen_shapes(%x: !rns.poly<4096, #rns.basis<Q: [40961, 65537]>, coeff>) -> !rns.poly<4096, #rns.basis<Q: [40961, 65537]>, coeff> {
  %0 = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 6, radix = 8, ot = 2>} : !rns.poly<4096, #rns.basis<Q: [40961, 65537]>, coeff> -> !rns.poly<4096, #rns.basis<Q: [40961, 65537]>, eval>
  %1 = rns.intt %0 {transform = #rns.transform<dgt, logN1 = 5, radix = 0, ot = 0>} : !rns.poly<4096, #rns.basis<Q: [40961, 65537]>, eval> -> !rns.poly<4096, #rns.basis<Q: [40961, 65537]>, coeff>
  return %1 : !rns.poly<4096, #rns.basis<Q: [40961, 65537]>, coeff>
}
