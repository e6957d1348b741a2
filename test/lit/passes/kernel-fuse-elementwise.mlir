// RUN: ringfuse-opt %s --split-input-file --rns-to-kernel --kernel-fuse-elementwise | FileCheck %s

// The three terms of a ciphertext tensor (rns-to-kernel already makes the
// middle one, x0 y1 + x1 y0, a single kernel) become one kernel: each input
// once, in the order the members first read it, and the outputs in order.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @tensor
// CHECK: %[[D0:.*]] = kernel.alloc
// CHECK-NEXT: %[[D1:.*]] = kernel.alloc
// CHECK-NEXT: %[[D2:.*]] = kernel.alloc
// CHECK-NEXT: kernel.elementwise ins(%arg0, %arg2, %arg3, %arg1 : {{.*}}) outs(%[[D0]], %[[D1]], %[[D2]] : {{.*}}) {
// CHECK-NEXT: ^bb0(%[[X0:.*]]: i64, %[[Y0:.*]]: i64, %[[Y1:.*]]: i64, %[[X1:.*]]: i64):
// CHECK-NEXT: %[[P00:.*]] = kernel.mulmod %[[X0]], %[[Y0]]
// CHECK-NEXT: %[[P01:.*]] = kernel.mulmod %[[X0]], %[[Y1]]
// CHECK-NEXT: %[[P10:.*]] = kernel.mulmod %[[X1]], %[[Y0]]
// CHECK-NEXT: %[[S:.*]] = kernel.addmod %[[P01]], %[[P10]]
// CHECK-NEXT: %[[P11:.*]] = kernel.mulmod %[[X1]], %[[Y1]]
// CHECK-NEXT: kernel.yield %[[P00]], %[[S]], %[[P11]]
// CHECK-NOT: kernel.elementwise
// CHECK: return %[[D0]], %[[D1]], %[[D2]]
func.func @tensor(%x0: !rns.poly<16, #Q, eval>, %x1: !rns.poly<16, #Q, eval>, %y0: !rns.poly<16, #Q, eval>, %y1: !rns.poly<16, #Q, eval>) -> (!rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>) {
  %d0 = rns.mul %x0, %y0 : !rns.poly<16, #Q, eval>
  %a = rns.mul %x0, %y1 : !rns.poly<16, #Q, eval>
  %b = rns.mul %x1, %y0 : !rns.poly<16, #Q, eval>
  %d1 = rns.add %a, %b : !rns.poly<16, #Q, eval>
  %d2 = rns.mul %x1, %y1 : !rns.poly<16, #Q, eval>
  return %d0, %d1, %d2 : !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
}

// -----

// A kernel that reads what another writes runs after it: the sum is also
// returned (two uses), so rns-to-kernel keeps it apart, and so does this pass.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @dependent
// CHECK: kernel.elementwise ins(%arg0, %arg1 : {{.*}}) outs(%[[S:.*]] : !kernel.buffer<16, #Q>)
// CHECK: kernel.addmod
// CHECK: kernel.elementwise ins(%[[S]] : !kernel.buffer<16, #Q>)
// CHECK: kernel.mulmod
func.func @dependent(%x: !rns.poly<16, #Q, eval>, %y: !rns.poly<16, #Q, eval>) -> (!rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>) {
  %s = rns.add %x, %y : !rns.poly<16, #Q, eval>
  %p = rns.mul %s, %s : !rns.poly<16, #Q, eval>
  return %s, %p : !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
}

// -----

// Kernels over different bases (or degrees) stay apart: one thread per
// residue of one shape.
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
// CHECK-LABEL: func.func @bases
// CHECK: kernel.elementwise ins(%arg0 : !kernel.buffer<16, #Q>)
// CHECK: kernel.elementwise ins(%arg1 : !kernel.buffer<16, #B>)
func.func @bases(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #B, coeff>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #B, coeff>) {
  %a = rns.neg %x : !rns.poly<16, #Q, coeff>
  %b = rns.neg %y : !rns.poly<16, #B, coeff>
  return %a, %b : !rns.poly<16, #Q, coeff>, !rns.poly<16, #B, coeff>
}

// -----

// The second negation moves up past the transform that reads the first's
// output (it touches none of its buffers), its output's allocation with it.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @hoisted
// CHECK: %[[A:.*]] = kernel.alloc
// CHECK-NEXT: %[[B:.*]] = kernel.alloc
// CHECK-NEXT: kernel.elementwise ins(%arg0, %arg1 : {{.*}}) outs(%[[A]], %[[B]] : {{.*}})
// CHECK: kernel.yield
// CHECK-NEXT: }
// CHECK-NEXT: kernel.launch "ntt_forward" outs(%[[A]]
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @hoisted(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, eval>, !rns.poly<16, #Q, coeff>) {
  %a = rns.neg %x : !rns.poly<16, #Q, coeff>
  %ea = rns.ntt %a : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.neg %y : !rns.poly<16, #Q, coeff>
  return %ea, %b : !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, coeff>
}

// -----

// The transform in between overwrites (in place) the buffer that the first
// negation reads and the second one needs transformed: neither may pass it.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @blocked
// CHECK: kernel.elementwise ins(%arg0 : {{.*}}) outs(%[[A:.*]] : {{.*}})
// CHECK: kernel.launch "ntt_forward" outs(%arg0
// CHECK: kernel.elementwise ins(%arg0 : {{.*}}) outs(%[[B:.*]] : {{.*}})
// CHECK: return %[[A]], %[[B]]
func.func @blocked(%x: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, eval>) {
  %a = rns.neg %x : !rns.poly<16, #Q, coeff>
  %ex = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.neg %ex : !rns.poly<16, #Q, eval>
  return %a, %b : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, eval>
}
