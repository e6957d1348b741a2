// RUN: ringfuse-opt %s --canonicalize | FileCheck %s

#Q = #rns.basis<Q: [97, 193]>

// The inverse transform is linear: one instead of two.
// CHECK-LABEL: func.func @sum_of_transforms
func.func @sum_of_transforms(%a: !rns.poly<16, #Q, eval>, %b: !rns.poly<16, #Q, eval>) -> !rns.poly<16, #Q, coeff> {
  // CHECK: %[[S:.*]] = rns.add %{{.*}}, %{{.*}} : !rns.poly<16, #Q, eval>
  // CHECK-NEXT: %[[R:.*]] = rns.intt %[[S]]
  // CHECK-NEXT: return %[[R]]
  %x = rns.intt %a : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %y = rns.intt %b : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %s = rns.add %x, %y : !rns.poly<16, #Q, coeff>
  return %s : !rns.poly<16, #Q, coeff>
}

// CHECK-LABEL: func.func @difference_of_transforms
func.func @difference_of_transforms(%a: !rns.poly<16, #Q, eval>, %b: !rns.poly<16, #Q, eval>) -> !rns.poly<16, #Q, coeff> {
  // CHECK: rns.sub %{{.*}}, %{{.*}} : !rns.poly<16, #Q, eval>
  // CHECK-NEXT: rns.intt
  %x = rns.intt %a : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %y = rns.intt %b : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %s = rns.sub %x, %y : !rns.poly<16, #Q, coeff>
  return %s : !rns.poly<16, #Q, coeff>
}

// A coefficient form used elsewhere stays.
// CHECK-LABEL: func.func @shared_transform
func.func @shared_transform(%a: !rns.poly<16, #Q, eval>, %b: !rns.poly<16, #Q, eval>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>) {
  // CHECK-COUNT-2: rns.intt
  // CHECK: rns.add %{{.*}}, %{{.*}} : !rns.poly<16, #Q, coeff>
  %x = rns.intt %a : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %y = rns.intt %b : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %s = rns.add %x, %y : !rns.poly<16, #Q, coeff>
  return %s, %x : !rns.poly<16, #Q, coeff>, !rns.poly<16, #Q, coeff>
}

// Distinct constants stay distinct; equal ones merge.
#T = #rns.basis<T: [17]>
// CHECK-LABEL: func.func @constants
// CHECK: %[[A:.*]] = rns.constant dense<[3, 0]>
// CHECK: %[[B:.*]] = rns.constant dense<[7, 0]>
// CHECK: return %[[A]], %[[B]], %[[A]]
func.func @constants() -> (!rns.poly<2, #T, coeff>, !rns.poly<2, #T, coeff>, !rns.poly<2, #T, coeff>) {
  %a = rns.constant dense<[3, 0]> : tensor<2xi64> : !rns.poly<2, #T, coeff>
  %b = rns.constant dense<[7, 0]> : tensor<2xi64> : !rns.poly<2, #T, coeff>
  %c = rns.constant dense<[3, 0]> : tensor<2xi64> : !rns.poly<2, #T, coeff>
  return %a, %b, %c : !rns.poly<2, #T, coeff>, !rns.poly<2, #T, coeff>, !rns.poly<2, #T, coeff>
}
