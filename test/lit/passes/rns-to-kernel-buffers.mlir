// RUN: ringfuse-opt %s --split-input-file --rns-to-kernel=products-from-log-n=4 --kernel-plan-slots | FileCheck %s
// Tensor products fuse with their NTTs from N = 2^15 by default.
// RUN: ringfuse-opt %s --split-input-file --rns-to-kernel --kernel-plan-slots | FileCheck %s --check-prefix=DEFAULT

// An input nothing reads after its transform is transformed in place; the
// add fuses into one kernel into a fresh buffer, whose inverse runs in place.
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @double
// CHECK-NEXT: kernel.launch "ntt_forward" outs(%arg0 : !kernel.buffer<16, #Q>)
// CHECK-NEXT: %[[OUT:.*]] = kernel.alloc {slot = 0 : i64}
// CHECK-NEXT: kernel.elementwise ins(%arg0 : !kernel.buffer<16, #Q>) outs(%[[OUT]]
// CHECK: kernel.launch "ntt_inverse" outs(%[[OUT]]
// CHECK-NEXT: return %[[OUT]]
func.func @double(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  %e = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %m = rns.add %e, %e : !rns.poly<16, #Q, eval>
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
  %m = rns.add %e, %e : !rns.poly<16, #Q, eval>
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
// CHECK-NEXT: kernel.launch "ntt_forward_from" ins(%[[DIGIT]] : !kernel.buffer<16, #D>) outs(%[[OUT]] : !kernel.buffer<16, #QP>)
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
// CHECK-NOT: kernel.launch "ntt_forward_from"
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

// -----

// A ciphertext product's tensor terms: sums of products of forward NTTs
// that only those products read are one ntt_products launch, which
// transforms each factor (in place, nothing reading its input afterwards)
// and writes each sum; (sum, factor, factor) triples name the products. The
// launch runs where the last sum stood, and the sums' inverses in place.
#QB = #rns.basis<QB: [97, 193, 353]>
// CHECK-LABEL: func.func @tensor
// DEFAULT-LABEL: func.func @tensor
// DEFAULT-COUNT-4: kernel.launch "ntt_forward"
// DEFAULT: kernel.elementwise
// DEFAULT-NOT: ntt_products
// CHECK-NOT: kernel.elementwise
// CHECK-NOT: kernel.launch "ntt_forward"
// CHECK: %[[D0:.*]] = kernel.alloc
// CHECK-NEXT: %[[D1:.*]] = kernel.alloc
// CHECK-NEXT: %[[D2:.*]] = kernel.alloc
// CHECK-NEXT: kernel.launch "ntt_products" ins(%arg0, %arg1, %arg2, %arg3 : {{.*}}) outs(%arg0, %arg1, %arg2, %arg3, %[[D0]], %[[D1]], %[[D2]] : {{.*}}) {products = array<i32: 0, 0, 2, 1, 0, 3, 1, 1, 2, 2, 1, 3>}
// CHECK-NEXT: kernel.launch "ntt_inverse" outs(%[[D0]]
// CHECK-NEXT: kernel.launch "ntt_inverse" outs(%[[D1]]
// CHECK-NEXT: kernel.launch "ntt_inverse" outs(%[[D2]]
func.func @tensor(%x0: !rns.poly<16, #QB, coeff>, %x1: !rns.poly<16, #QB, coeff>, %y0: !rns.poly<16, #QB, coeff>, %y1: !rns.poly<16, #QB, coeff>) -> (!rns.poly<16, #QB, coeff>, !rns.poly<16, #QB, coeff>, !rns.poly<16, #QB, coeff>) {
  %a0 = rns.ntt %x0 : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  %a1 = rns.ntt %x1 : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  %b0 = rns.ntt %y0 : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  %b1 = rns.ntt %y1 : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  %d0 = rns.mul %a0, %b0 : !rns.poly<16, #QB, eval>
  %m01 = rns.mul %a0, %b1 : !rns.poly<16, #QB, eval>
  %m10 = rns.mul %a1, %b0 : !rns.poly<16, #QB, eval>
  %d1 = rns.add %m01, %m10 : !rns.poly<16, #QB, eval>
  %d2 = rns.mul %a1, %b1 : !rns.poly<16, #QB, eval>
  %c0 = rns.intt %d0 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  %c1 = rns.intt %d1 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  %c2 = rns.intt %d2 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  return %c0, %c1, %c2 : !rns.poly<16, #QB, coeff>, !rns.poly<16, #QB, coeff>, !rns.poly<16, #QB, coeff>
}

// -----

// A factor read in coefficient form afterwards is transformed into a
// scratch buffer; a factor that is a fast conversion from one prime is
// read as that prime's words (as ntt_key_switch's digits).
#Q = #rns.basis<Q: [97, 193]>
#D = #rns.basis<D: [193]>
// CHECK-LABEL: func.func @product_scratch
// CHECK-NOT: kernel.launch "convert"
// CHECK: %[[LIMB:.*]] = kernel.view %arg1 limbs 1 to 2
// CHECK: %[[SCRATCH0:.*]] = kernel.alloc
// CHECK-NEXT: %[[SCRATCH1:.*]] = kernel.alloc
// CHECK-NEXT: %[[SUM:.*]] = kernel.alloc
// CHECK-NEXT: kernel.launch "ntt_products" ins(%arg0, %[[LIMB]] : !kernel.buffer<16, #Q>, !kernel.buffer<16, #D>) outs(%[[SCRATCH0]], %[[SCRATCH1]], %[[SUM]] : {{.*}}) {products = array<i32: 0, 0, 1>}
func.func @product_scratch(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, eval>, !rns.poly<16, #Q, coeff>) {
  %d = rns.extract %y limbs 1 to 2 : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #D, coeff>
  %z = rns.convert %d : !rns.poly<16, #D, coeff> -> !rns.poly<16, #Q, coeff>
  %a = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.ntt %z : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %p = rns.mul %a, %b : !rns.poly<16, #Q, eval>
  %s = rns.add %x, %x : !rns.poly<16, #Q, coeff>
  return %p, %s : !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, coeff>
}

// -----

// No fusion where a factor's transform has another reader, where a sum is
// read before the set's last sum is computed, or past ntt_shape.h's bounds
// (five factors connected by their products).
#Q = #rns.basis<Q: [97, 193]>
// CHECK-LABEL: func.func @factor_read_elsewhere
// CHECK-COUNT-2: kernel.launch "ntt_forward"
// CHECK-NOT: ntt_products
// CHECK-LABEL: func.func @sum_read_early
// CHECK-COUNT-2: kernel.launch "ntt_forward"
// CHECK-NOT: ntt_products
// CHECK-LABEL: func.func @five_factors
// CHECK-COUNT-5: kernel.launch "ntt_forward"
// CHECK-NOT: ntt_products
func.func @factor_read_elsewhere(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>) {
  %a = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.ntt %y : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %p = rns.mul %a, %b : !rns.poly<16, #Q, eval>
  return %p, %a : !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
}
func.func @sum_read_early(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>) {
  %a = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.ntt %y : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %p = rns.mul %a, %b : !rns.poly<16, #Q, eval>
  %r = rns.automorphism %p by 3 : !rns.poly<16, #Q, eval>
  %q = rns.mul %a, %a : !rns.poly<16, #Q, eval>
  return %r, %q : !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
}
func.func @five_factors(%u: !rns.poly<16, #Q, coeff>, %v: !rns.poly<16, #Q, coeff>, %w: !rns.poly<16, #Q, coeff>, %x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>) {
  %a = rns.ntt %u : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.ntt %v : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %c = rns.ntt %w : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %d = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %e = rns.ntt %y : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %ab = rns.mul %a, %b : !rns.poly<16, #Q, eval>
  %cd = rns.mul %c, %d : !rns.poly<16, #Q, eval>
  %s0 = rns.add %ab, %cd : !rns.poly<16, #Q, eval>
  %s1 = rns.mul %d, %e : !rns.poly<16, #Q, eval>
  return %s0, %s1 : !rns.poly<16, #Q, eval>, !rns.poly<16, #Q, eval>
}

// -----

// A fused NTT runs rows of at most 2^8 words (ntt_shape.h's fusedNttShape):
// factors chosen with rows of 2^9 (logN1 = 4 at N = 2^13) launch with
// logN1 = 5, and a lone NTT keeps its choice; factors chosen with rows of
// 2^8 keep theirs.
#W = #rns.basis<W: [65537, 786433]>
// CHECK-LABEL: func.func @fused_rows
// CHECK: kernel.launch "ntt_products" {{.*}} {products = array<i32: 0, 0, 1>, transform = #rns.transform<ntt, logN1 = 5, radix = 4, ot = 1>}
// CHECK: kernel.launch "ntt_forward" {{.*}} {transform = #rns.transform<ntt, logN1 = 4, radix = 4, ot = 1>}
func.func @fused_rows(%x: !rns.poly<8192, #W, coeff>, %y: !rns.poly<8192, #W, coeff>, %z: !rns.poly<8192, #W, coeff>) -> (!rns.poly<8192, #W, eval>, !rns.poly<8192, #W, eval>) {
  %a = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 4, radix = 4, ot = 1>} : !rns.poly<8192, #W, coeff> -> !rns.poly<8192, #W, eval>
  %b = rns.ntt %y {transform = #rns.transform<ntt, logN1 = 4, radix = 4, ot = 1>} : !rns.poly<8192, #W, coeff> -> !rns.poly<8192, #W, eval>
  %p = rns.mul %a, %b : !rns.poly<8192, #W, eval>
  %c = rns.ntt %z {transform = #rns.transform<ntt, logN1 = 4, radix = 4, ot = 1>} : !rns.poly<8192, #W, coeff> -> !rns.poly<8192, #W, eval>
  return %p, %c : !rns.poly<8192, #W, eval>, !rns.poly<8192, #W, eval>
}
// CHECK-LABEL: func.func @fused_rows_kept
// CHECK: kernel.launch "ntt_products" {{.*}} {products = array<i32: 0, 0, 1>, transform = #rns.transform<ntt, logN1 = 5, radix = 4, ot = 0>}
func.func @fused_rows_kept(%x: !rns.poly<8192, #W, coeff>, %y: !rns.poly<8192, #W, coeff>) -> !rns.poly<8192, #W, eval> {
  %a = rns.ntt %x {transform = #rns.transform<ntt, logN1 = 5, radix = 4, ot = 0>} : !rns.poly<8192, #W, coeff> -> !rns.poly<8192, #W, eval>
  %b = rns.ntt %y {transform = #rns.transform<ntt, logN1 = 5, radix = 4, ot = 0>} : !rns.poly<8192, #W, coeff> -> !rns.poly<8192, #W, eval>
  %p = rns.mul %a, %b : !rns.poly<8192, #W, eval>
  return %p : !rns.poly<8192, #W, eval>
}
