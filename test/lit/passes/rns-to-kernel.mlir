// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-to-kernel --kernel-plan-slots | FileCheck %s
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-to-kernel --kernel-plan-slots | FileCheck %s --check-prefix=KERNELS

// x * y, relinearized: 35 rns ops become 27 kernels (the two extracts are
// views, the two products of c1's tensor term and their sum fuse into one,
// and key switching's two one-prime conversions and their two NTTs run in
// its inner product's launch).
// KERNELS-LABEL: func.func @product
// KERNELS-COUNT-27: kernel.{{launch|elementwise}}
// KERNELS-NOT: kernel.{{launch|elementwise}}
// KERNELS: return
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// CHECK-LABEL: func.func @product
// CHECK-SAME: (%{{.*}}: !kernel.buffer<16, #Q>
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // CHECK-COUNT-4: kernel.launch "convert" ins(%{{.*}} : !kernel.buffer<16, #Q>) outs(%{{.*}} : !kernel.buffer<16, #QB>) {method = 1 : i32}
  // The NTT of each lifted component runs in place.
  // CHECK: kernel.launch "ntt_forward" outs(%[[A0:.*]] : !kernel.buffer<16, #QB>)
  // CHECK: kernel.elementwise ins(%[[A0]], %{{.*}} : {{.*}}) outs(%{{.*}} : !kernel.buffer<16, #QB>) {
  // CHECK-NEXT: ^bb0(%{{.*}}: i64, %{{.*}}: i64):
  // CHECK-NEXT: kernel.mulmod
  // CHECK-NEXT: kernel.yield
  // CHECK: kernel.launch "scale_round" ins({{.*}}) outs({{.*}} : !kernel.buffer<16, #B>) {divisor = #Q, numerator = 97 : i64}
  // CHECK: kernel.view %{{.*}} limbs 0 to 1 : !kernel.buffer<16, #Q> -> !kernel.buffer<16, #D0>
  // CHECK: %[[D1:.*]] = kernel.view %{{.*}} limbs 1 to 2 : !kernel.buffer<16, #Q> -> !kernel.buffer<16, #D1>
  // CHECK: kernel.launch "ntt_key_switch" ins(%{{.*}}, %[[D1]] : !kernel.buffer<16, #D0>, !kernel.buffer<16, #D1>) outs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64}
  // CHECK: kernel.launch "scale_round" {{.*}} {divisor = #P, numerator = 1 : i64}
  // CHECK: return
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// -----

// Elementwise chains fuse into one kernel; the output gets its own buffer.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// CHECK-LABEL: func.func @chain
func.func @chain(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // CHECK: kernel.elementwise
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: kernel.addmod
  // CHECK-NEXT: kernel.submod
  // CHECK-NEXT: kernel.negmod
  // CHECK-NEXT: kernel.yield
  // CHECK: kernel.elementwise
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: kernel.addmod
  // CHECK-NEXT: kernel.submod
  // CHECK-NEXT: kernel.negmod
  // CHECK-NEXT: kernel.yield
  // CHECK-NOT: kernel.elementwise
  // CHECK: return
  %0 = bfv.add %x, %y : !bfv.ciphertext<#p, 2>
  %1 = bfv.sub %0, %y : !bfv.ciphertext<#p, 2>
  %2 = bfv.negate %1 : !bfv.ciphertext<#p, 2>
  return %2 : !bfv.ciphertext<#p, 2>
}

// -----

// Returning an input copies it into an output buffer of its own.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
// CHECK-LABEL: func.func @identity
func.func @identity(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // CHECK: %[[OUT0:.*]] = kernel.alloc {slot = 0 : i64}
  // CHECK: kernel.elementwise ins(%arg0 {{.*}} outs(%[[OUT0]]
  // CHECK: %[[OUT1:.*]] = kernel.alloc {slot = 1 : i64}
  // CHECK: kernel.elementwise ins(%arg1 {{.*}} outs(%[[OUT1]]
  // CHECK: return %[[OUT0]], %[[OUT1]]
  return %x : !bfv.ciphertext<#p, 2>
}
