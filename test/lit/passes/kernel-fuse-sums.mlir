// RUN: ringfuse-opt %s --kernel-fuse-elementwise | FileCheck %s

// Independent sums of products of one buffer type are one sum_of_products
// launch: a giant step's two components read each shared factor (the
// plaintext diagonals p0, p1) once. Its sums stay in order; a sum that
// accumulates does not join sums that do not.
#Q = #rns.basis<Q: [97, 193]>
!b = !kernel.buffer<16, #Q>
// CHECK-LABEL: func.func @components
// CHECK: kernel.launch "sum_of_products" ins(%arg0, %arg2, %arg1, %arg3, %arg4, %arg5 : {{.*}}) outs(%[[S0:.*]], %[[S1:.*]] : {{.*}}) {products = array<i32: 0, 0, 1, 0, 2, 3, 1, 0, 4, 1, 2, 5>}
// CHECK-NEXT: kernel.launch "sum_of_products" ins(%arg0, %arg2 : {{.*}}) outs(%[[S0]] : {{.*}}) {accumulate, products = array<i32: 0, 0, 1>}
// CHECK-NEXT: return %[[S0]], %[[S1]]
func.func @components(%p0: !b, %p1: !b, %c0: !b, %c1: !b, %d0: !b, %d1: !b) -> (!b, !b) {
  %s0 = kernel.alloc : !b
  kernel.launch "sum_of_products" ins(%p0, %c0, %p1, %c1 : !b, !b, !b, !b) outs(%s0 : !b) {products = array<i32: 0, 0, 1, 0, 2, 3>}
  %s1 = kernel.alloc : !b
  kernel.launch "sum_of_products" ins(%p0, %d0, %p1, %d1 : !b, !b, !b, !b) outs(%s1 : !b) {products = array<i32: 0, 0, 1, 0, 2, 3>}
  kernel.launch "sum_of_products" ins(%p0, %c0 : !b, !b) outs(%s0 : !b) {accumulate, products = array<i32: 0, 0, 1>}
  return %s0, %s1 : !b, !b
}
