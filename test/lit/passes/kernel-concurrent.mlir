// RUN: ringfuse-opt %s --split-input-file --rns-to-kernel --kernel-concurrent | FileCheck %s
// RUN: ringfuse-opt %s --split-input-file --rns-to-kernel --kernel-concurrent --kernel-plan-slots | FileCheck %s --check-prefix=SLOTS

// The lifts of two ciphertext components, then their transforms: each pair
// is independent and runs together. The transform of the second sinks past
// nothing: it joins the first's group, and the sum follows both.
#Q = #rns.basis<Q: [97, 193]>
#QB = #rns.basis<QB: [97, 193, 353]>
// CHECK-LABEL: func.func @lifts
// CHECK: kernel.concurrent {
// CHECK-NEXT: kernel.launch "convert" ins(%arg0
// CHECK-NEXT: kernel.launch "convert" ins(%arg1
// CHECK-NEXT: {{^ +}$}}
// CHECK: kernel.concurrent {
// CHECK-NEXT: kernel.launch "ntt_forward"
// CHECK-NEXT: kernel.launch "ntt_forward"
// CHECK-NEXT: {{^ +}$}}
// CHECK: kernel.elementwise
// CHECK-NOT: kernel.concurrent
// CHECK: return
func.func @lifts(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #QB, eval> {
  %a = rns.convert %x exact : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #QB, coeff>
  %ea = rns.ntt %a : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  %b = rns.convert %y exact : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #QB, coeff>
  %eb = rns.ntt %b : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  %p = rns.add %ea, %eb : !rns.poly<16, #QB, eval>
  return %p : !rns.poly<16, #QB, eval>
}

// -----

// A launch that reads what another writes waits for it: the conversion of
// the transformed value stays after the transform, alone.
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
// CHECK-LABEL: func.func @dependent
// CHECK-NOT: kernel.concurrent
// CHECK: kernel.launch "ntt_inverse"
// CHECK-NEXT: kernel.alloc
// CHECK-NEXT: kernel.launch "convert"
func.func @dependent(%x: !rns.poly<16, #Q, eval>) -> !rns.poly<16, #B, coeff> {
  %c = rns.intt %x : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %b = rns.convert %c : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #B, coeff>
  return %b : !rns.poly<16, #B, coeff>
}

// -----

// A launch moves up past a generated kernel it does not depend on (and its
// buffer's allocation with it): the second conversion joins the first,
// above the elementwise kernel that reads the first's output.
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
// CHECK-LABEL: func.func @hoisted
// CHECK: %[[B0:.*]] = kernel.alloc
// CHECK-NEXT: %[[N:.*]] = kernel.alloc
// CHECK-NEXT: %[[B1:.*]] = kernel.alloc
// CHECK-NEXT: kernel.concurrent {
// CHECK-NEXT: kernel.launch "convert" ins(%arg0 {{.*}} outs(%[[B0]]
// CHECK-NEXT: kernel.launch "convert" ins(%arg1 {{.*}} outs(%[[B1]]
// CHECK-NEXT: {{^ +}$}}
// CHECK: kernel.elementwise ins(%[[B0]] {{.*}} outs(%[[N]]
// Every buffer of the group and the negation's output are live together.
// SLOTS-LABEL: func.func @hoisted
// SLOTS: kernel.alloc {slot = 0 : i64}
// SLOTS-NEXT: kernel.alloc {slot = 1 : i64}
// SLOTS-NEXT: kernel.alloc {slot = 2 : i64}
// SLOTS-NEXT: kernel.concurrent
func.func @hoisted(%x: !rns.poly<16, #Q, coeff>, %y: !rns.poly<16, #Q, coeff>) -> (!rns.poly<16, #B, coeff>, !rns.poly<16, #B, coeff>) {
  %a = rns.convert %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #B, coeff>
  %n = rns.neg %a : !rns.poly<16, #B, coeff>
  %b = rns.convert %y : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #B, coeff>
  return %n, %b : !rns.poly<16, #B, coeff>, !rns.poly<16, #B, coeff>
}

// -----

// A group's launches go longest chain first: the second transform's output
// goes on to a conversion and a transform, the first's only to the copy that
// returns it, so the second leads.
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [353]>
// CHECK-LABEL: func.func @longest_chain_first
// CHECK: kernel.concurrent {
// CHECK-NEXT: kernel.launch "ntt_inverse" outs(%arg1
// CHECK-NEXT: kernel.launch "ntt_inverse" outs(%arg0
// CHECK-NEXT: {{^ +}$}}
// CHECK-NEXT: kernel.launch "convert" ins(%arg1
// CHECK-NEXT: kernel.launch "ntt_forward"
func.func @longest_chain_first(%x: !rns.poly<16, #Q, eval>, %y: !rns.poly<16, #Q, eval>) -> (!rns.poly<16, #Q, coeff>, !rns.poly<16, #B, eval>) {
  %a = rns.intt %x : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %b = rns.intt %y : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %c = rns.convert %b : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #B, coeff>
  %e = rns.ntt %c : !rns.poly<16, #B, coeff> -> !rns.poly<16, #B, eval>
  return %a, %e : !rns.poly<16, #Q, coeff>, !rns.poly<16, #B, eval>
}
