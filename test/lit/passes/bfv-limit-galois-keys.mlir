// RUN: ringfuse-opt %s --split-input-file --bfv-limit-galois-keys=max-keys=4 | FileCheck %s
// RUN: ringfuse-opt %s --split-input-file --bfv-limit-galois-keys=max-keys=5 | FileCheck %s --check-prefix=FIVE
// RUN: ringfuse-opt %s --split-input-file --bfv-limit-galois-keys | FileCheck %s --check-prefix=NONE
// A key at N = 64 over Q = 2 primes and P = 1, dnum 2: 2 digits x 2 x 3 limbs
// x 64 words x 8 bytes = 6144 bytes; 4 keys fit in 24576 bytes.
// RUN: ringfuse-opt %s --split-input-file --bfv-limit-galois-keys=max-bytes=24576 | FileCheck %s

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>

// Steps 3, 5, 6, 7, 9 (5 keys) from the keys 1, 2, 4, 8, chains of one
// ciphertext sharing their prefixes (x by 1 for 3, 5, 7 and 9; x by 1, 2 for 7).
// CHECK-LABEL: func.func @steps
// CHECK-NEXT: %[[R1:.*]] = bfv.rotate %arg0 by 1
// CHECK-NEXT: %[[R3:.*]] = bfv.rotate %[[R1]] by 2
// CHECK-NEXT: %[[R5:.*]] = bfv.rotate %[[R1]] by 4
// CHECK-NEXT: %[[R2:.*]] = bfv.rotate %arg0 by 2
// CHECK-NEXT: %[[R6:.*]] = bfv.rotate %[[R2]] by 4
// CHECK-NEXT: %[[R7:.*]] = bfv.rotate %[[R3]] by 4
// CHECK-NEXT: %[[R9:.*]] = bfv.rotate %[[R1]] by 8
// CHECK-NEXT: bfv.add %[[R3]], %[[R5]]
// CHECK-NOT: bfv.rotate
// With one key more, the most used step (7) keeps its own.
// FIVE-LABEL: func.func @steps
// FIVE-COUNT-2: bfv.rotate %arg0 by 7
// NONE-LABEL: func.func @steps
// NONE-COUNT-6: bfv.rotate %arg0 by
func.func @steps(%x: !ct) -> !ct {
  %a = bfv.rotate %x by 3 : !ct
  %b = bfv.rotate %x by 5 : !ct
  %c = bfv.rotate %x by 6 : !ct
  %d = bfv.rotate %x by 7 : !ct
  %e = bfv.rotate %x by 9 : !ct
  %f = bfv.rotate %x by 7 : !ct
  %0 = bfv.add %a, %b : !ct
  %1 = bfv.add %0, %c : !ct
  %2 = bfv.add %1, %d : !ct
  %3 = bfv.add %2, %e : !ct
  %4 = bfv.add %3, %f : !ct
  return %4 : !ct
}
