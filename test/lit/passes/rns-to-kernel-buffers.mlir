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

// -----

// A fast conversion from one prime that only a forward NTT reads is not
// written: the NTT reads the prime's words for every limb into a buffer of
// its own, and the one-limb view stays live until it has.
#Q = #rns.basis<Q: [97, 193]>
#D = #rns.basis<D: [193]>
#QP = #rns.basis<QP: [97, 193, 353]>
// CHECK-LABEL: func.func @digit
// CHECK-NOT: kernel.launch "convert"
// CHECK: %[[DIGIT:.*]] = kernel.view %arg0 limbs 1 to 2
// CHECK: %[[OUT:.*]] = kernel.alloc
// CHECK-NEXT: kernel.launch "ntt_forward" ins(%[[DIGIT]] : !kernel.buffer<16, #D>) outs(%[[OUT]] : !kernel.buffer<16, #QP>)
// CHECK-NOT: kernel.launch "convert"
// CHECK: return %[[OUT]]
func.func @digit(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #QP, eval> {
  %d = rns.extract %x limbs 1 to 2 : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #D, coeff>
  %c = rns.convert %d : !rns.poly<16, #D, coeff> -> !rns.poly<16, #QP, coeff>
  %e = rns.ntt %c : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  return %e : !rns.poly<16, #QP, eval>
}

// -----

// Not fused: an exact conversion (centered, not the prime's words), a
// conversion from two primes, one also read in coefficient form, and one
// whose prime is 8 times an output prime or more (beyond the NTT's lazy
// input bound).
#Q = #rns.basis<Q: [97, 193]>
#D = #rns.basis<D: [193]>
#W = #rns.basis<W: [1601]>
#QP = #rns.basis<QP: [97, 193, 353]>
// CHECK-LABEL: func.func @not_fused
// CHECK-COUNT-4: kernel.launch "convert"
// CHECK-NOT: kernel.launch "ntt_forward" ins
// CHECK: return
func.func @not_fused(%x: !rns.poly<16, #Q, coeff>, %w: !rns.poly<16, #W, coeff>)
    -> (!rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>,
        !rns.poly<16, #QP, coeff>, !rns.poly<16, #QP, eval>) {
  %d = rns.extract %x limbs 1 to 2 : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #D, coeff>
  %exact = rns.convert %d exact : !rns.poly<16, #D, coeff> -> !rns.poly<16, #QP, coeff>
  %e0 = rns.ntt %exact : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %two = rns.convert %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #QP, coeff>
  %e1 = rns.ntt %two : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %kept = rns.convert %d : !rns.poly<16, #D, coeff> -> !rns.poly<16, #QP, coeff>
  %e2 = rns.ntt %kept : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %wide = rns.convert %w : !rns.poly<16, #W, coeff> -> !rns.poly<16, #QP, coeff>
  %e3 = rns.ntt %wide : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  return %e0, %e1, %e2, %kept, %e3 : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, coeff>, !rns.poly<16, #QP, eval>
}

// -----

// Key switching's inner product of forward NTTs that only it reads is one
// ntt_key_switch: a one-prime digit (a fast conversion) is read as the
// prime's words, its first NTT step writing a scratch buffer of its own; a
// digit over QP that nothing reads afterwards is transformed in place; one
// read afterwards gets a scratch buffer. The sums get buffers of their own.
#Q = #rns.basis<Q: [97, 193]>
#D = #rns.basis<D: [193]>
#QP = #rns.basis<QP: [97, 193, 353]>
// CHECK-LABEL: func.func @key_switch
// CHECK-NOT: kernel.launch "ntt_forward"
// CHECK-NOT: kernel.launch "convert"
// CHECK: %[[DIGIT:.*]] = kernel.view %arg0 limbs 1 to 2
// CHECK: %[[SCRATCH0:.*]] = kernel.alloc
// CHECK: %[[SCRATCH2:.*]] = kernel.alloc
// CHECK: %[[K0:.*]] = kernel.alloc
// CHECK: %[[K1:.*]] = kernel.alloc
// CHECK: kernel.launch "ntt_key_switch" ins(%[[DIGIT]], %arg1, %arg2 : !kernel.buffer<16, #D>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) outs(%[[SCRATCH0]], %arg1, %[[SCRATCH2]], %[[K0]], %[[K1]] : !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>, !kernel.buffer<16, #QP>) {key = 0 : i64}
// CHECK-NOT: kernel.launch "key_switch_inner_product"
// CHECK: kernel.elementwise ins(%arg2 :
func.func @key_switch(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #QP, coeff>,
                      %z: !rns.poly<16, #QP, coeff>)
    -> (!rns.poly<16, #QP, eval>, !rns.poly<16, #QP, coeff>) {
  %d = rns.extract %x limbs 1 to 2 : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #D, coeff>
  %c = rns.convert %d : !rns.poly<16, #D, coeff> -> !rns.poly<16, #QP, coeff>
  %e0 = rns.ntt %c : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %e1 = rns.ntt %y : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %e2 = rns.ntt %z : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %k0, %k1 = rns.key_switch_inner_product %e0, %e1, %e2 {key = 0 : i64} : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  return %k0, %z : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, coeff>
}

// -----

// Not fused: a transformed digit that is also returned, and a digit that is
// no NTT's output; each NTT runs on its own and the inner product reads the
// transforms.
#QP = #rns.basis<QP: [97, 193, 353]>
// CHECK-LABEL: func.func @key_switch_not_fused
// CHECK-COUNT-2: kernel.launch "ntt_forward"
// CHECK: kernel.launch "key_switch_inner_product"
// CHECK-NOT: kernel.launch "ntt_key_switch"
// CHECK-LABEL: func.func @digit_not_transformed
// CHECK: kernel.launch "ntt_forward"
// CHECK: kernel.launch "key_switch_inner_product"
// CHECK-NOT: kernel.launch "ntt_key_switch"
func.func @key_switch_not_fused(%y: !rns.poly<16, #QP, coeff>, %z: !rns.poly<16, #QP, coeff>)
    -> (!rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>) {
  %e1 = rns.ntt %y : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %e2 = rns.ntt %z : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %k0, %k1 = rns.key_switch_inner_product %e1, %e2 {key = 0 : i64} : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  return %k0, %k1, %e2 : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
}
func.func @digit_not_transformed(%y: !rns.poly<16, #QP, coeff>, %w: !rns.poly<16, #QP, eval>)
    -> (!rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>) {
  %e1 = rns.ntt %y : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #QP, eval>
  %k0, %k1 = rns.key_switch_inner_product %e1, %w {key = 0 : i64} : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval> -> !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
  return %k0, %k1 : !rns.poly<16, #QP, eval>, !rns.poly<16, #QP, eval>
}
