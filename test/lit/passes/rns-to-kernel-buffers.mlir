// RUN: ringfuse-opt %s --split-input-file --rns-to-kernel --kernel-plan-slots | FileCheck %s

// An input nothing reads after its transform is transformed in place; the
// mul fuses into one kernel into a fresh buffer, whose inverse runs in place.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @square
// CHECK-NEXT: kernel.launch "ntt_forward" outs(%arg0 : !kernel.buffer<16, #Q>)
// CHECK-NEXT: %[[OUT:.*]] = kernel.alloc {slot = 0 : i64}
// CHECK-NEXT: kernel.elementwise ins(%arg0 : !kernel.buffer<16, #Q>) outs(%[[OUT]]
// CHECK: kernel.launch "ntt_inverse" outs(%[[OUT]]
// CHECK-NEXT: return %[[OUT]]
func.func @square(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  %e = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %m = rns.mul %e, %e : !rns.poly<16, #Q, eval>
  %c = rns.intt %m : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  return %c : !rns.poly<16, #Q, coeff>
}

// -----

// A coefficient form still needed later is transformed on a copy.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @kept
// CHECK: %[[COPY:.*]] = kernel.alloc
// CHECK-NEXT: kernel.elementwise ins(%arg0 {{.*}} outs(%[[COPY]]
// CHECK: kernel.launch "ntt_forward" outs(%[[COPY]]
func.func @kept(%x: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>) {
  %e = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %m = rns.mul %e, %e : !rns.poly<16, #Q, eval>
  %c = rns.intt %m : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %s = rns.add %c, %x : !rns.poly<16, #Q, coeff>
  return %s, %c : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
}

// -----

// Buffers whose values are dead are reused by later allocations of the same
// size: three chained products need only two slots.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @chain
// CHECK-NOT: slot = 2
// CHECK: return
func.func @chain(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  %a = rns.automorphism %x by 3 : !rns.poly<16, #Q, coeff>
  %b = rns.automorphism %a by 3 : !rns.poly<16, #Q, coeff>
  %c = rns.automorphism %b by 3 : !rns.poly<16, #Q, coeff>
  return %c : !rns.poly<16, #Q, coeff>
}

// -----

// The fused kernel add(x, s) - t runs at the sub, after x's transform: x
// must not be transformed in place (the e2e circuit (x + 5) - 3 x).
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @read_by_a_later_fused_kernel
// CHECK-NOT: kernel.launch "ntt_forward" outs(%arg0
// CHECK: kernel.launch "ntt_forward"
func.func @read_by_a_later_fused_kernel(%x: !rns.poly<16, #Q, coeff>, %s: !rns.poly<16, #Q, coeff>, %f: !rns.poly<16, #Q, eval>) -> !rns.poly<16, #Q, coeff> {
  %a = rns.add %x, %s : !rns.poly<16, #Q, coeff>
  %e = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %m = rns.mul %e, %f : !rns.poly<16, #Q, eval>
  %i = rns.intt %m : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %r = rns.sub %a, %i : !rns.poly<16, #Q, coeff>
  return %r : !rns.poly<16, #Q, coeff>
}
