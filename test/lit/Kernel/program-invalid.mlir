// RUN: ringfuse-translate --emit-cpp %s --verify-diagnostics --split-input-file
// Hostile kernel programs end in a verifier error (exit 1) before anything is
// emitted: the emitter sizes its buffer table by the slots, indexes constant
// tables by limb and loops over N words per limb, so the verifiers hold the
// rules it relies on.
// RUN: not ringfuse-translate --emit-cpp %s --split-input-file 2>&1 | FileCheck %s
// CHECK: error: 'kernel.alloc' op slot -4 is negative

#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>
#Q = #rns.basis<Q: [97, 193]>
module {
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 1, ringfuse.inputs = array<i64: 0>, ringfuse.outputs = array<i64: 0>, ringfuse.params = #p} {
    // expected-error@+1 {{'kernel.alloc' op slot -4 is negative}}
    %0 = kernel.alloc {slot = -4} : !kernel.buffer<16, #Q>
    kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%0 : !kernel.buffer<16, #Q>) {galois_element = 3}
    return %0 : !kernel.buffer<16, #Q>
  }
}

// -----

// Slot -1 would have named the input's buffer, so the kernel overwrote it.
#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>
#Q = #rns.basis<Q: [97, 193]>
module {
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 1, ringfuse.inputs = array<i64: 0>, ringfuse.outputs = array<i64: 0>, ringfuse.params = #p} {
    // expected-error@+1 {{'kernel.alloc' op slot -1 is negative}}
    %0 = kernel.alloc {slot = -1} : !kernel.buffer<16, #Q>
    kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%0 : !kernel.buffer<16, #Q>) {galois_element = 3}
    return %0 : !kernel.buffer<16, #Q>
  }
}

// -----

#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>
#Q = #rns.basis<Q: [97, 193]>
module {
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 1, ringfuse.inputs = array<i64: 0>, ringfuse.outputs = array<i64: 0>, ringfuse.params = #p} {
    // expected-error@+1 {{'kernel.alloc' op slot 4294967296 is not below the function's kernel.slots = 1}}
    %0 = kernel.alloc {slot = 4294967296} : !kernel.buffer<16, #Q>
    kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%0 : !kernel.buffer<16, #Q>) {galois_element = 3}
    return %0 : !kernel.buffer<16, #Q>
  }
}

// -----

// A slot count beyond the allocations would size the buffer table by it.
#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>
#Q = #rns.basis<Q: [97, 193]>
module {
  // expected-error@+1 {{'func.func' op 'kernel.slots' is 2147483648, not in [0, 1] (its allocations)}}
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 2147483648, ringfuse.inputs = array<i64: 0>, ringfuse.outputs = array<i64: 0>, ringfuse.params = #p} {
    %0 = kernel.alloc {slot = 2147483647} : !kernel.buffer<16, #Q>
    kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%0 : !kernel.buffer<16, #Q>) {galois_element = 3}
    return %0 : !kernel.buffer<16, #Q>
  }
}

// -----

#Q = #rns.basis<Q: [97, 193]>
func.func @f(%x: !kernel.buffer<16, #Q>) {
  // expected-error@+1 {{'kernel.alloc' op has a slot, but its function has no 'kernel.slots' (kernel-plan-slots sets both)}}
  %0 = kernel.alloc {slot = 0} : !kernel.buffer<16, #Q>
  return
}

// -----

#Q = #rns.basis<Q: [97, 193]>
// expected-error@+1 {{'func.func' op has the unknown kernel attribute 'kernel.slot'}}
func.func @f(%x: !kernel.buffer<16, #Q>) attributes {kernel.slot = 1} {
  return
}

// -----

// The basis disagrees with the parameters: 195 = 3 * 5 * 13 is no prime.
#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>
#Q = #rns.basis<Q: [97, 195]>
module {
  // expected-error@+1 {{'func.func' op holds a buffer over #rns.basis<Q: [97, 195]>, whose modulus 195 is neither t = 17 nor a prime = 1 mod 2N = 32 below 2^61}}
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 1, ringfuse.inputs = array<i64: 0>, ringfuse.outputs = array<i64: 0>, ringfuse.params = #p} {
    %0 = kernel.alloc {slot = 0} : !kernel.buffer<16, #Q>
    kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%0 : !kernel.buffer<16, #Q>) {galois_element = 3}
    return %0 : !kernel.buffer<16, #Q>
  }
}

// -----

// 113 is prime, but not 1 mod 2N: the ring has no NTT over it.
#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>
#Q = #rns.basis<Q: [97, 193]>
#B = #rns.basis<B: [113]>
module {
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 1, ringfuse.inputs = array<i64: 0>, ringfuse.outputs = array<i64: 0>, ringfuse.params = #p} {
    // expected-error@+1 {{'kernel.alloc' op holds a buffer over #rns.basis<B: [113]>, whose modulus 113 is neither t = 17 nor a prime = 1 mod 2N = 32 below 2^61}}
    %0 = kernel.alloc {slot = 0} : !kernel.buffer<16, #B>
    kernel.launch "convert" ins(%x : !kernel.buffer<16, #Q>) outs(%0 : !kernel.buffer<16, #B>)
    return %x : !kernel.buffer<16, #Q>
  }
}

// -----

// A generated kernel loops over N words per limb: its buffers have degree N.
#p = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>
#Q = #rns.basis<Q: [97, 193]>
module {
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 1, ringfuse.inputs = array<i64: 0>, ringfuse.outputs = array<i64: 0>, ringfuse.params = #p} {
    // expected-error@+1 {{'kernel.alloc' op holds a buffer of degree 8 ('!kernel.buffer<8, #rns.basis<Q: [97, 193]>>'), but its program's ring has N = 16}}
    %0 = kernel.alloc {slot = 0} : !kernel.buffer<8, #Q>
    kernel.elementwise outs(%0 : !kernel.buffer<8, #Q>) {
      kernel.yield
    }
    return %x : !kernel.buffer<16, #Q>
  }
}
