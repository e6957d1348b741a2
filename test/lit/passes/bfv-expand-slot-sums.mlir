// RUN: ringfuse-opt %s --split-input-file --bfv-expand-slot-sums | FileCheck %s

// N = 16: rows of 8 slots, so rotations by 1, 2, 4 and then a row swap.
#p = #bfv.params<t = 65537, N = 16>

// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[X:.*]]: !bfv.ciphertext
func.func @sum(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // CHECK-NEXT: %[[R1:.*]] = bfv.rotate %[[X]] by 1
  // CHECK-NEXT: %[[A1:.*]] = bfv.add %[[X]], %[[R1]]
  // CHECK-NEXT: %[[R2:.*]] = bfv.rotate %[[A1]] by 2
  // CHECK-NEXT: %[[A2:.*]] = bfv.add %[[A1]], %[[R2]]
  // CHECK-NEXT: %[[R4:.*]] = bfv.rotate %[[A2]] by 4
  // CHECK-NEXT: %[[A4:.*]] = bfv.add %[[A2]], %[[R4]]
  // CHECK-NEXT: %[[S:.*]] = bfv.swap_rows %[[A4]]
  // CHECK-NEXT: %[[SUM:.*]] = bfv.add %[[A4]], %[[S]]
  // CHECK-NOT: bfv.sum_slots
  // CHECK-NEXT: return %[[SUM]]
  %0 = bfv.sum_slots %x : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// N = 2: each row holds one slot, so only the row swap remains.
#p = #bfv.params<t = 5, N = 2>

// CHECK-LABEL: func.func @tiny_ring
func.func @tiny_ring(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // CHECK-NOT: bfv.rotate
  // CHECK: %[[S:.*]] = bfv.swap_rows %arg0
  // CHECK-NEXT: %[[SUM:.*]] = bfv.add %arg0, %[[S]]
  // CHECK-NEXT: return %[[SUM]]
  %0 = bfv.sum_slots %x : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}

// -----

// Two sums in one function, the second over the first.
#p = #bfv.params<t = 65537, N = 8>

// CHECK-LABEL: func.func @chained
func.func @chained(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // CHECK-COUNT-2: bfv.rotate %{{.*}} by 1
  // CHECK-NOT: bfv.sum_slots
  %0 = bfv.sum_slots %x : !bfv.ciphertext<#p, 2>
  %1 = bfv.sum_slots %0 : !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}
