// RUN: ringfuse-opt %s --split-input-file --rns-fuse | FileCheck %s
// The whole pipeline: every HPS tensor term's rounding is one launch, and the
// manifest pairs it with its exact conversion (then_convert 1).
// RUN: ringfuse-opt %s --split-input-file --rns-fuse --rns-to-kernel --kernel-plan-slots | FileCheck %s --check-prefix=KERNEL

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
// HPS's t/Q rounding of a tensor term into B, then B -> Q exactly: one op.
// CHECK-LABEL: func.func @tensor_term
// CHECK-NEXT: %[[R:.*]] = rns.scale_round %{{.*}} by 65537 over #{{.*}} via #{{.*}} : !rns.poly<16, #{{.*}}, coeff> -> !rns.poly<16, #[[QOUT:.*]], coeff>
// CHECK-NEXT: return %[[R]]
// KERNEL-LABEL: func.func @tensor_term
// KERNEL: kernel.launch "scale_round" ins(%{{.*}} : !kernel.buffer<16, #{{.*}}>) outs(%{{.*}} : !kernel.buffer<16, #{{.*}}>) {divisor = #{{.*}}, numerator = 65537 : i64, via = #{{.*}}}
// KERNEL-NEXT: return
func.func @tensor_term(%x: !rns.poly<16, #QB, coeff>) -> !rns.poly<16, #Q, coeff> {
  %0 = rns.scale_round %x by 65537 over #Q : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  %1 = rns.convert %0 exact : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
  return %1 : !rns.poly<16, #Q, coeff>
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
// The rounding has another user: it stays, and so does the conversion.
// CHECK-LABEL: func.func @shared_rounding
// CHECK: rns.scale_round %{{.*}} by 65537 over #{{[A-Za-z0-9_]+}} :
// CHECK: rns.convert %{{.*}} exact
// CHECK-NOT: via
func.func @shared_rounding(%x: !rns.poly<16, #QB, coeff>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #B, coeff>) {
  %0 = rns.scale_round %x by 65537 over #Q : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  %1 = rns.convert %0 exact : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
  return %1, %0 : !rns.poly<16, #Q, coeff>, !rns.poly<16, #B, coeff>
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
#QP = #rns.basis<QP: [97, 193, 449]>
// Not fused: a fast floor, and a fast conversion.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: via
// CHECK: return
func.func @not_fused(%x: !rns.poly<16, #QB, coeff>) -> (!rns.poly<16, #QP, coeff>, !rns.poly<16, #Q, coeff>) {
  %0 = rns.scale_round %x by 65537 over #Q floor : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  %1 = rns.convert %0 exact : !rns.poly<16, #B, coeff> -> !rns.poly<16, #QP, coeff>
  %2 = rns.scale_round %x by 65537 over #Q : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  %3 = rns.convert %2 : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
  return %1, %3 : !rns.poly<16, #QP, coeff>, !rns.poly<16, #Q, coeff>
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#R = #rns.basis<R: [353, 449]>
#QR = #rns.basis<QR: [97, 193, 353, 449]>
#S = #rns.basis<S: [449]>
// Compact HPS switches an operand into R (round(R x / Q)) and extends it
// exactly to Q u R: one op, whose kernel writes R's limbs as it rounds them
// and converts them to Q's. A conversion that only copies (R -> S) is not
// fused.
// CHECK-LABEL: func.func @switch_then_extend
// CHECK-NEXT: %[[E:.*]] = rns.scale_round %arg0 by 158497 over #{{[A-Za-z0-9_]+}} via #{{[A-Za-z0-9_]+}} : !rns.poly<16, #{{.*}}, coeff> -> !rns.poly<16, #[[QR:[A-Za-z0-9_]+]], coeff>
// CHECK-NEXT: %[[S:.*]] = rns.scale_round %arg0 by 158497 over #{{[A-Za-z0-9_]+}} :
// CHECK-NEXT: %[[C:.*]] = rns.convert %[[S]] exact
// CHECK-NEXT: return %[[E]], %[[C]]
// KERNEL-LABEL: func.func @switch_then_extend
// KERNEL: kernel.launch "scale_round" ins(%arg0 : !kernel.buffer<16, #{{.*}}>) outs(%{{.*}} : !kernel.buffer<16, #{{.*}}>) {divisor = #{{.*}}, numerator = 158497 : i64, via = #{{.*}}}
func.func @switch_then_extend(%x: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #QR, coeff>, !rns.poly<16, #S, coeff>) {
  %0 = rns.scale_round %x by 158497 over #Q : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #R, coeff>
  %1 = rns.convert %0 exact : !rns.poly<16, #R, coeff> -> !rns.poly<16, #QR, coeff>
  %2 = rns.scale_round %x by 158497 over #Q : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #R, coeff>
  %3 = rns.convert %2 exact : !rns.poly<16, #R, coeff> -> !rns.poly<16, #S, coeff>
  return %1, %3 : !rns.poly<16, #QR, coeff>, !rns.poly<16, #S, coeff>
}

// -----

#QP = #rns.basis<QP: [97, 193, 449]>
#Q = #rns.basis<Q: [97, 193]>
#P = #rns.basis<P: [449]>
// Relinearization's end, c + round(x / P): the sum joins the rounding, on
// either side of the add, and the kernel reads the addend.
// CHECK-LABEL: func.func @relinearization_sum
// CHECK-NEXT: %[[A:.*]] = rns.scale_round %arg0 by 1 over #{{[A-Za-z0-9_]+}} plus %arg2 : !rns.poly<16, #{{.*}}, coeff> -> !rns.poly<16, #[[Q:.*]], coeff>
// CHECK-NEXT: %[[B:.*]] = rns.scale_round %arg1 by 1 over #{{[A-Za-z0-9_]+}} plus %arg3 :
// CHECK-NEXT: return %[[A]], %[[B]]
// KERNEL-LABEL: func.func @relinearization_sum
// KERNEL: kernel.launch "scale_round_add" ins(%arg0, %arg2 : !kernel.buffer<16, #{{.*}}>, !kernel.buffer<16, #{{.*}}>) outs(%{{.*}} : !kernel.buffer<16, #{{.*}}>) {divisor = #{{.*}}, numerator = 1 : i64}
// KERNEL: kernel.launch "scale_round_add" ins(%arg1, %arg3 :
// KERNEL-NEXT: return
func.func @relinearization_sum(%x0: !rns.poly<16, #QP, coeff>, %x1: !rns.poly<16, #QP, coeff>, %c0: !rns.poly<16, #Q, coeff>, %c1: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>) {
  %0 = rns.scale_round %x0 by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %1 = rns.add %c0, %0 : !rns.poly<16, #Q, coeff>
  %2 = rns.scale_round %x1 by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %3 = rns.add %2, %c1 : !rns.poly<16, #Q, coeff>
  return %1, %3 : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#QP = #rns.basis<QP: [97, 193, 449]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
#P = #rns.basis<P: [449]>
// HPS's product: the tensor term's rounding fuses its conversion (via), so
// the sum goes into the division by P instead. A rounding with another user
// keeps its add.
// CHECK-LABEL: func.func @sum_after_fused_conversion
// CHECK-NEXT: %[[T:.*]] = rns.scale_round %arg0 by 65537 over #{{[A-Za-z0-9_]+}} via #{{[A-Za-z0-9_]+}} :
// CHECK-NEXT: %[[S:.*]] = rns.scale_round %arg1 by 1 over #{{[A-Za-z0-9_]+}} plus %[[T]] :
// CHECK-NEXT: %[[U:.*]] = rns.scale_round %arg1 by 1 over #{{[A-Za-z0-9_]+}} :
// CHECK-NEXT: %[[V:.*]] = rns.add %[[T]], %[[U]]
// CHECK-NEXT: return %[[S]], %[[V]], %[[U]]
func.func @sum_after_fused_conversion(%x: !rns.poly<16, #QB, coeff>, %y: !rns.poly<16, #QP, coeff>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>) {
  %0 = rns.scale_round %x by 65537 over #Q : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #B, coeff>
  %1 = rns.convert %0 exact : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
  %2 = rns.scale_round %y by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %3 = rns.add %1, %2 : !rns.poly<16, #Q, coeff>
  %4 = rns.scale_round %y by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %5 = rns.add %1, %4 : !rns.poly<16, #Q, coeff>
  return %3, %5, %4 : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
}

// -----

#QB = #rns.basis<QB: [97, 193, 353]>
#QP = #rns.basis<QP: [97, 193, 449]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
#P = #rns.basis<P: [449]>
// HPS's product without a fused conversion, round(t d_0 / B) + round(k_0 / P):
// both terms are roundings, and the one whose input is ready last (key
// switching's, here k_0 = y + y) takes the sum, on either side of the add,
// so that d_0's rounding does not wait for key switching.
// CHECK-LABEL: func.func @sum_into_last_rounding
// CHECK-NEXT: %[[K:.*]] = rns.add %arg1, %arg1
// CHECK-NEXT: %[[D0:.*]] = rns.scale_round %arg0 by 65537 over #{{[A-Za-z0-9_]+}} :
// CHECK-NEXT: %[[S0:.*]] = rns.scale_round %[[K]] by 1 over #{{[A-Za-z0-9_]+}} plus %[[D0]] :
// CHECK-NEXT: %[[D1:.*]] = rns.scale_round %arg2 by 65537 over #{{[A-Za-z0-9_]+}} :
// CHECK-NEXT: %[[S1:.*]] = rns.scale_round %[[K]] by 1 over #{{[A-Za-z0-9_]+}} plus %[[D1]] :
// CHECK-NEXT: return %[[S0]], %[[S1]]
func.func @sum_into_last_rounding(%d0: !rns.poly<16, #QB, coeff>, %y: !rns.poly<16, #QP, coeff>, %d1: !rns.poly<16, #QB, coeff>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>) {
  %k = rns.add %y, %y : !rns.poly<16, #QP, coeff>
  %0 = rns.scale_round %d0 by 65537 over #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  %1 = rns.scale_round %k by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %2 = rns.add %0, %1 : !rns.poly<16, #Q, coeff>
  %3 = rns.scale_round %d1 by 65537 over #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  %4 = rns.scale_round %k by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %5 = rns.add %4, %3 : !rns.poly<16, #Q, coeff>
  return %2, %5 : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
#P = #rns.basis<P: [449]>
#QB = #rns.basis<QB: [97, 193, 353]>
#QP = #rns.basis<QP: [97, 193, 449]>
// Compact HPS's relinearization: each sum of key switching, rounded by P,
// plus a tensor term rounded by t over B. The terms' Q limbs join key
// switching's sums in the evaluation domain, scaled by t P / B mod q
// (61 mod 97, 176 mod 193); only their B limbs are transformed back, and
// rounded alone, where the terms were.
// CHECK-LABEL: func.func @relinearize
// CHECK-NEXT: %[[D0Q:.*]] = rns.extract %arg0 limbs 0 to 2 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #Q, eval>
// CHECK-NEXT: %[[D0B:.*]] = rns.extract %arg0 limbs 2 to 3 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #B, eval>
// CHECK-NEXT: %[[C0:.*]] = rns.intt %[[D0B]] : !rns.poly<16, #B, eval> -> !rns.poly<16, #B, coeff>
// CHECK-NEXT: %[[R0:.*]] = rns.scale_round %[[C0]] by 65537 over #B : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
// CHECK-NEXT: %[[D1Q:.*]] = rns.extract %arg1 limbs 0 to 2
// CHECK-NEXT: %[[D1B:.*]] = rns.extract %arg1 limbs 2 to 3
// CHECK-NEXT: %[[C1:.*]] = rns.intt %[[D1B]]
// CHECK-NEXT: %[[R1:.*]] = rns.scale_round %[[C1]] by 65537 over #B : !rns.poly<16, #B, coeff> -> !rns.poly<16, #Q, coeff>
// CHECK-NEXT: %[[K0:.*]], %[[K1:.*]] = rns.key_switch_inner_product %arg2, %arg3 plus(%[[D0Q]], %[[D1Q]] : !rns.poly<16, #Q, eval>) scaled [61, 176] {key = 0 : i64}
// CHECK-NEXT: %[[I0:.*]] = rns.intt %[[K0]]
// CHECK-NEXT: %[[I1:.*]] = rns.intt %[[K1]]
// CHECK-NEXT: %[[S0:.*]] = rns.scale_round %[[I0]] by 1 over #P plus %[[R0]]
// CHECK-NEXT: %[[S1:.*]] = rns.scale_round %[[I1]] by 1 over #P plus %[[R1]]
// CHECK-NEXT: return %[[S0]], %[[S1]]
// The B limbs are transformed in place (views of the terms' buffers, whose
// Q limbs key switching still reads), and the scales are a constant table.
// KERNEL-LABEL: func.func @relinearize
// KERNEL: %[[V0:.*]] = kernel.view %arg0 limbs 2 to 3
// KERNEL-NEXT: kernel.launch "ntt_inverse" outs(%[[V0]] :
// KERNEL: %[[T:.*]] = kernel.constant dense<[61, 176]> : tensor<2xi64> : !kernel.buffer<1, #Q>
// KERNEL-NEXT: kernel.launch "key_switch_inner_product" ins(%arg2, %arg3, %{{.*}}, %{{.*}}, %[[T]] : {{.*}}) outs({{.*}}) {addend, key = 0 : i64}
// KERNEL-NOT: kernel.elementwise
func.func @relinearize(%d0: !rns.poly<16, #QB, eval>, %d1: !rns.poly<16, #QB, eval>,
                       %g0: !rns.poly<16, #QP, eval>, %g1: !rns.poly<16, #QP, eval>)
    -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>) {
  %c0 = rns.intt %d0 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  %r0 = rns.scale_round %c0 by 65537 over #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  %c1 = rns.intt %d1 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  %r1 = rns.scale_round %c1 by 65537 over #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  %k0, %k1 = rns.key_switch_inner_product %g0, %g1 {key = 0} : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  %i0 = rns.intt %k0 : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, coeff>
  %i1 = rns.intt %k1 : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, coeff>
  %s0 = rns.scale_round %i0 by 1 over #P plus %r0 : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %s1 = rns.scale_round %i1 by 1 over #P plus %r1 : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  return %s0, %s1 : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
}

// -----

#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
#P = #rns.basis<P: [449]>
#QB = #rns.basis<QB: [97, 193, 353]>
#QP = #rns.basis<QP: [97, 193, 449]>
// Not fused: the second sum is rounded without a term (its kept term would
// have nothing to carry), and the first's term is read elsewhere too.
// CHECK-LABEL: func.func @relinearize_not_fused
// CHECK: rns.key_switch_inner_product %arg2, %arg3 {key = 0 : i64}
// CHECK-NOT: scaled
// CHECK: return
func.func @relinearize_not_fused(%d0: !rns.poly<16, #QB, eval>, %d1: !rns.poly<16, #QB, eval>,
                                 %g0: !rns.poly<16, #QP, eval>, %g1: !rns.poly<16, #QP, eval>)
    -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>) {
  %c0 = rns.intt %d0 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  %r0 = rns.scale_round %c0 by 65537 over #B : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #Q, coeff>
  %k0, %k1 = rns.key_switch_inner_product %g0, %g1 {key = 0} : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  %i0 = rns.intt %k0 : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, coeff>
  %i1 = rns.intt %k1 : !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, coeff>
  %s0 = rns.scale_round %i0 by 1 over #P plus %r0 : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  %s1 = rns.scale_round %i1 by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #Q, coeff>
  return %s0, %s1 : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
}
