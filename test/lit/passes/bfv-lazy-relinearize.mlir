// RUN: ringfuse-opt %s --split-input-file --bfv-lazy-relinearize | FileCheck %s
// Key switches before and after, counted at the ring level:
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly | FileCheck %s --check-prefix=BEFORE
// RUN: ringfuse-opt %s --split-input-file --bfv-lazy-relinearize --bfv-to-poly | FileCheck %s --check-prefix=AFTER

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// A sum of four products: one relinearization, of the sum, where it is
// returned.
// CHECK-LABEL: func.func @sum_of_four_products
// CHECK-COUNT-4: bfv.mul
// CHECK-NOT: bfv.relinearize
// CHECK: %[[SUM:.*]] = bfv.add %{{.*}}, %{{.*}} : !bfv.ciphertext<#{{.*}}, 3>
// CHECK-NEXT: %[[R:.*]] = bfv.relinearize %[[SUM]]
// CHECK-NEXT: return %[[R]]
// BEFORE-LABEL: func.func @sum_of_four_products
// BEFORE-COUNT-4: poly.key_switch
// BEFORE-NOT: poly.key_switch
// AFTER-LABEL: func.func @sum_of_four_products
// AFTER-COUNT-1: poly.key_switch
// AFTER-NOT: poly.key_switch
func.func @sum_of_four_products(%a: !ct, %b: !ct, %c: !ct, %d: !ct) -> !ct {
  %0 = bfv.mul %a, %b : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  %2 = bfv.mul %c, %d : !ct -> !ct3
  %3 = bfv.relinearize %2 : !ct3 -> !ct
  %4 = bfv.add %1, %3 : !ct
  %5 = bfv.mul %a, %c : !ct -> !ct3
  %6 = bfv.relinearize %5 : !ct3 -> !ct
  %7 = bfv.sub %4, %6 : !ct
  %8 = bfv.mul %b, %d : !ct -> !ct3
  %9 = bfv.relinearize %8 : !ct3 -> !ct
  %10 = bfv.add %7, %9 : !ct
  return %10 : !ct
}

// -----

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// Three components flow through negation, plaintext products and a sum with
// a fresh ciphertext; the sum is relinearized before its rotation, and a
// 2-component value is added after that.
// CHECK-LABEL: func.func @through_plaintext_ops
// CHECK: %[[AB:.*]] = bfv.mul
// CHECK-NEXT: %[[W:.*]] = bfv.mul_plain %[[AB]], %{{.*}} : !bfv.ciphertext<#{{.*}}, 3>, !bfv.plaintext
// CHECK-NEXT: %[[CD:.*]] = bfv.mul
// CHECK-NEXT: %[[N:.*]] = bfv.negate %[[CD]] : !bfv.ciphertext<#{{.*}}, 3>
// CHECK-NEXT: %[[S:.*]] = bfv.add %[[W]], %[[N]] : !bfv.ciphertext<#{{.*}}, 3>
// CHECK-NEXT: %[[SX:.*]] = bfv.add %[[S]], %{{.*}} : !bfv.ciphertext<#{{.*}}, 3>, !bfv.ciphertext<#{{.*}}, 2>
// CHECK-NEXT: %[[R:.*]] = bfv.relinearize %[[SX]]
// CHECK-NEXT: bfv.rotate %[[R]] by 1
// BEFORE-LABEL: func.func @through_plaintext_ops
// AFTER-LABEL: func.func @through_plaintext_ops
// AFTER-COUNT-2: poly.key_switch
// AFTER-NOT: poly.key_switch
func.func @through_plaintext_ops(%a: !ct, %b: !ct, %x: !ct, %w: !bfv.plaintext<#p>) -> !ct {
  %0 = bfv.mul %a, %b : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  %2 = bfv.mul_plain %1, %w : !ct, !bfv.plaintext<#p>
  %3 = bfv.mul %a, %x : !ct -> !ct3
  %4 = bfv.relinearize %3 : !ct3 -> !ct
  %5 = bfv.negate %4 : !ct
  %6 = bfv.add %2, %5 : !ct
  %7 = bfv.add %6, %x : !ct
  %8 = bfv.rotate %7 by 1 : !ct
  return %8 : !ct
}

// -----

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// Where no other product's chain meets it, a relinearization stays where it
// is: deferring it would save nothing and widen the plaintext product. A
// product used twice, or by a further product, stays too.
// AFTER-LABEL: func.func @nothing_to_merge
// CHECK-LABEL: func.func @nothing_to_merge
// CHECK: bfv.mul
// CHECK-NEXT: bfv.relinearize
// CHECK-NEXT: bfv.mul_plain %{{.*}} : !bfv.ciphertext<#{{.*}}, 2>
// CHECK-NEXT: bfv.mul
// CHECK-NEXT: bfv.relinearize
// CHECK-NEXT: bfv.add
// CHECK-NEXT: bfv.mul
// CHECK-NEXT: bfv.relinearize
func.func @nothing_to_merge(%a: !ct, %b: !ct, %w: !bfv.plaintext<#p>) -> (!ct, !ct) {
  %0 = bfv.mul %a, %b : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  %2 = bfv.mul_plain %1, %w : !ct, !bfv.plaintext<#p>
  %3 = bfv.mul %a, %a : !ct -> !ct3
  %4 = bfv.relinearize %3 : !ct3 -> !ct
  %5 = bfv.add %4, %4 : !ct
  %6 = bfv.mul %5, %b : !ct -> !ct3
  %7 = bfv.relinearize %6 : !ct3 -> !ct
  return %2, %7 : !ct, !ct
}

// -----

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// A sum already relinearized once (as this pass leaves it) stays as it is:
// running the pass again changes nothing.
// CHECK-LABEL: func.func @already_lazy
// CHECK: bfv.add
// CHECK-NEXT: %[[N:.*]] = bfv.negate
// CHECK-NEXT: %[[R:.*]] = bfv.relinearize %[[N]]
// CHECK-NEXT: return %[[R]]
// AFTER-LABEL: func.func @already_lazy
// AFTER-COUNT-1: poly.key_switch
// AFTER-NOT: poly.key_switch
func.func @already_lazy(%a: !ct, %b: !ct, %c: !ct, %d: !ct) -> !ct {
  %0 = bfv.mul %a, %b : !ct -> !ct3
  %1 = bfv.mul %c, %d : !ct -> !ct3
  %2 = bfv.add %0, %1 : !ct3
  %3 = bfv.negate %2 : !ct3
  %4 = bfv.relinearize %3 : !ct3 -> !ct
  return %4 : !ct
}
