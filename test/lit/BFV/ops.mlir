// Every bfv op round-trips through the custom and the generic form.
// RUN: ringfuse-opt %s | ringfuse-opt | FileCheck %s
// RUN: ringfuse-opt %s --mlir-print-op-generic | ringfuse-opt | FileCheck %s

// CHECK-DAG: #[[P:.*]] = #bfv.params<t = 65537>
// CHECK-DAG: #[[FULL:.*]] = #bfv.params<t = 65537, N = 16, Q = [97, 193], P = [353], dnum = 2>
// CHECK-DAG: #[[NB:.*]] = #bfv.params<t = 256, N = 16>
#traced = #bfv.params<t = 65537>
#chosen = #bfv.params<t = 65537, N = 16, Q = [97, 193], P = [353], dnum = 2>

// CHECK-LABEL: func.func @arithmetic
// CHECK-SAME: (%[[X:.*]]: !bfv.ciphertext<#[[P]], 2>, %[[Y:.*]]: !bfv.ciphertext<#[[P]], 2>)
func.func @arithmetic(%x: !bfv.ciphertext<#traced, 2>, %y: !bfv.ciphertext<#traced, 2>) -> !bfv.ciphertext<#traced, 2> {
  // CHECK: %[[A:.*]] = bfv.add %[[X]], %[[Y]] : !bfv.ciphertext<#[[P]], 2>
  %a = bfv.add %x, %y : !bfv.ciphertext<#traced, 2>
  // CHECK: %[[S:.*]] = bfv.sub %[[A]], %[[Y]] : !bfv.ciphertext<#[[P]], 2>
  %s = bfv.sub %a, %y : !bfv.ciphertext<#traced, 2>
  // CHECK: %[[N:.*]] = bfv.negate %[[S]] : !bfv.ciphertext<#[[P]], 2>
  %n = bfv.negate %s : !bfv.ciphertext<#traced, 2>
  // CHECK: %[[M:.*]] = bfv.mul %[[N]], %[[X]] : !bfv.ciphertext<#[[P]], 2> -> !bfv.ciphertext<#[[P]], 3>
  %m = bfv.mul %n, %x : !bfv.ciphertext<#traced, 2> -> !bfv.ciphertext<#traced, 3>
  // CHECK: %[[M2:.*]] = bfv.add %[[M]], %[[M]] : !bfv.ciphertext<#[[P]], 3>
  %m2 = bfv.add %m, %m : !bfv.ciphertext<#traced, 3>
  // A product plus a 2-component ciphertext keeps 3 components.
  // CHECK: %[[M3:.*]] = bfv.sub %[[M2]], %[[X]] : !bfv.ciphertext<#[[P]], 3>, !bfv.ciphertext<#[[P]], 2>
  %m3 = bfv.sub %m2, %x : !bfv.ciphertext<#traced, 3>, !bfv.ciphertext<#traced, 2>
  // CHECK: %[[M4:.*]] = bfv.add %[[X]], %[[M3]] : !bfv.ciphertext<#[[P]], 2>, !bfv.ciphertext<#[[P]], 3>
  %m4 = bfv.add %x, %m3 : !bfv.ciphertext<#traced, 2>, !bfv.ciphertext<#traced, 3>
  // CHECK: %[[R:.*]] = bfv.relinearize %[[M4]] : !bfv.ciphertext<#[[P]], 3> -> !bfv.ciphertext<#[[P]], 2>
  %r = bfv.relinearize %m4 : !bfv.ciphertext<#traced, 3> -> !bfv.ciphertext<#traced, 2>
  // CHECK: return %[[R]]
  return %r : !bfv.ciphertext<#traced, 2>
}

// CHECK-LABEL: func.func @plaintext_operands
func.func @plaintext_operands(%x: !bfv.ciphertext<#traced, 2>, %w: !bfv.plaintext<#traced>) -> !bfv.ciphertext<#traced, 2> {
  // CHECK: bfv.add_plain %{{.*}}, %{{.*}} : !bfv.ciphertext<#[[P]], 2>, !bfv.plaintext<#[[P]]>
  %a = bfv.add_plain %x, %w : !bfv.ciphertext<#traced, 2>, !bfv.plaintext<#traced>
  // CHECK: bfv.sub_plain %{{.*}}, %{{.*}} : !bfv.ciphertext<#[[P]], 2>, !bfv.plaintext<#[[P]]>
  %s = bfv.sub_plain %a, %w : !bfv.ciphertext<#traced, 2>, !bfv.plaintext<#traced>
  // CHECK: bfv.mul_plain %{{.*}}, %{{.*}} : !bfv.ciphertext<#[[P]], 2>, !bfv.plaintext<#[[P]]>
  %m = bfv.mul_plain %s, %w : !bfv.ciphertext<#traced, 2>, !bfv.plaintext<#traced>
  return %m : !bfv.ciphertext<#traced, 2>
}

// CHECK-LABEL: func.func @constants
func.func @constants(%x: !bfv.ciphertext<#traced, 2>) -> !bfv.ciphertext<#traced, 2> {
  // CHECK: bfv.encode 65536 : i64 -> !bfv.plaintext<#[[P]]>
  %c = bfv.encode 65536 : i64 -> !bfv.plaintext<#traced>
  // CHECK: bfv.encode dense<[0, 1, 65536]> : tensor<3xi64> -> !bfv.plaintext<#[[P]]>
  %v = bfv.encode dense<[0, 1, 65536]> : tensor<3xi64> -> !bfv.plaintext<#traced>
  %a = bfv.add_plain %x, %c : !bfv.ciphertext<#traced, 2>, !bfv.plaintext<#traced>
  %m = bfv.mul_plain %a, %v : !bfv.ciphertext<#traced, 2>, !bfv.plaintext<#traced>
  return %m : !bfv.ciphertext<#traced, 2>
}

// CHECK-LABEL: func.func @slots
func.func @slots(%x: !bfv.ciphertext<#chosen, 2>) -> !bfv.ciphertext<#chosen, 2> {
  // CHECK: bfv.rotate %{{.*}} by 7 : !bfv.ciphertext<#[[FULL]], 2>
  %r = bfv.rotate %x by 7 : !bfv.ciphertext<#chosen, 2>
  // CHECK: bfv.rotate %{{.*}} by -7 : !bfv.ciphertext<#[[FULL]], 2>
  %l = bfv.rotate %r by -7 : !bfv.ciphertext<#chosen, 2>
  // CHECK: bfv.swap_rows %{{.*}} : !bfv.ciphertext<#[[FULL]], 2>
  %s = bfv.swap_rows %l : !bfv.ciphertext<#chosen, 2>
  // CHECK: bfv.sum_slots %{{.*}} : !bfv.ciphertext<#[[FULL]], 2>
  %t = bfv.sum_slots %s : !bfv.ciphertext<#chosen, 2>
  // CHECK: bfv.encode dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<16xi64>
  %v = bfv.encode dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<16xi64> -> !bfv.plaintext<#chosen>
  // CHECK: bfv.rotate_plain %{{.*}} by -3 : !bfv.plaintext<#[[FULL]]>
  %u = bfv.rotate_plain %v by -3 : !bfv.plaintext<#chosen>
  %m = bfv.mul_plain %t, %u : !bfv.ciphertext<#chosen, 2>, !bfv.plaintext<#chosen>
  return %m : !bfv.ciphertext<#chosen, 2>
}

// A plaintext modulus without batching is fine for everything but slots.
// CHECK-LABEL: func.func @no_batching
// CHECK-SAME: !bfv.ciphertext<#[[NB]], 2>
func.func @no_batching(%x: !bfv.ciphertext<#bfv.params<t = 256, N = 16>, 2>) -> !bfv.ciphertext<#bfv.params<t = 256, N = 16>, 2> {
  // CHECK: bfv.encode 255 : i64
  %c = bfv.encode 255 : i64 -> !bfv.plaintext<#bfv.params<t = 256, N = 16>>
  %m = bfv.mul_plain %x, %c : !bfv.ciphertext<#bfv.params<t = 256, N = 16>, 2>, !bfv.plaintext<#bfv.params<t = 256, N = 16>>
  return %m : !bfv.ciphertext<#bfv.params<t = 256, N = 16>, 2>
}
