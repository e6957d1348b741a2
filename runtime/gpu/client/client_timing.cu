//===- client_timing.cu - timed encryptions and decryptions on the GPU ----===//
//
// The device work of each run captured into a graph of its own and replayed
// between CUDA events, the inputs uploaded before; the last run checked
// against the CPU reference, word for word.
//
//===----------------------------------------------------------------------===//
#include "client_encryption.cuh"

#include "ringfuse/gpu/timing_events.cuh"
#include "ringfuse/runtime/argument_checks.h"
#include "ringfuse/runtime/gpu_client.h"

namespace ringfuse::runtime::gpu {

using runtime::detail::checkCiphertext;
using runtime::detail::checkPlaintext;
using runtime::detail::checkPublicKey;

namespace {

/// What `body` queues on g's stream, captured into an instantiated graph.
template <typename Body>
cuda::Graph captureGraph(GpuContext &g, const char *operation, Body &body) {
  const cudaStream_t stream = g.stream.get();
  cudaGetLastError(); // nothing stale may be blamed on a captured launch
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
        std::string("starting the capture of ") + operation);
  try {
    body();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);
    if (partial)
      cudaGraphDestroy(partial);
    cudaGetLastError();
    throw;
  }
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(stream, &graph),
        std::string("ending the capture of ") + operation);
  if (!graph)
    throw Error(std::string("GPU client: capturing ") + operation +
                " gave no graph");
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cuda::Graph captured(graph, exec);
  check(instantiated, std::string("instantiating the graph of ") + operation);
  return captured;
}

/// Times the device work of `body` (launches on g's stream only). Each of
/// the warmup + iterations runs is captured into a graph of its own first
/// (body may differ per run: fresh sampling domains); then the graphs are
/// replayed in order, `before` (device-to-device resets, not timed) ahead of
/// each, and each timed replay bracketed by two CUDA events on the stream.
/// All queued back to back, then one wait: the events see the GPU's work,
/// not the host's launch latency. Each timed replay's microseconds.
template <typename Before, typename Body>
std::vector<double> timeOnStream(GpuContext &g, size_t warmup,
                                 size_t iterations, const char *operation,
                                 Before before, Body body) {
  if (iterations == 0)
    throw Error(std::string("timing ") + operation +
                ": iterations must be at least 1");
  const cudaStream_t stream = g.stream.get();
  finish(g, (std::string("uploading the inputs of ") + operation).c_str());
  std::vector<cuda::Graph> graphs;
  graphs.reserve(warmup + iterations);
  for (size_t i = 0; i < warmup + iterations; ++i)
    graphs.push_back(captureGraph(g, operation, body));
  cuda::TimingEvents events(iterations);
  for (size_t i = 0; i < warmup + iterations; ++i) {
    before();
    const bool timed = i >= warmup;
    if (timed)
      events.recordStart(i - warmup, stream);
    check(cudaGraphLaunch(graphs[i].exec(), stream),
          std::string("launching the graph of ") + operation);
    if (timed)
      events.recordStop(i - warmup, stream);
  }
  finish(g, (std::string("timed runs of ") + operation).c_str());
  return events.microseconds();
}

} // namespace

std::vector<double> timeEncryptPublic(const PublicKey &key,
                                      const Plaintext &plaintext, Prng &prng,
                                      size_t warmup, size_t iterations) {
  if (!key.context)
    throw Error("public key has no parameter set");
  const Context &context = *key.context;
  checkPlaintext(context, plaintext);
  checkPublicKey(context, key);
  std::vector<double> microseconds;
  std::vector<uint64_t> last;
  Prng lastPrng = prng; // the Prng as the last run starts (set below)
  {
    std::lock_guard<std::mutex> guard(clientLock());
    GpuContext &g = gpuContextFor(key.context);
    PublicEncryptionBuffers buffers(g, key, plaintext);
    size_t run = 0;
    microseconds = timeOnStream(
        g, warmup, iterations, "public-key encryption", [] {}, [&] {
          if (++run == warmup + iterations)
            lastPrng = prng;
          encryptPublicOnDevice(g, prng, buffers);
        });
    const size_t qWords = g.qSize * g.n;
    last.resize(2 * qWords);
    buffers.ct.download(last.data(), 2 * qWords, "a ciphertext");
    finish(g, "downloading the last timed encryption");
  }
  // The last timed run must have computed the CPU reference's ciphertext
  // for the same domains, word for word.
  if (ringfuse::runtime::encryptPublic(key, plaintext, lastPrng).data != last)
    throw Error("timeEncryptPublic: the last timed encryption differs from "
                "the CPU reference's ciphertext");
  return microseconds;
}

std::vector<double> timeDecrypt(const SecretKey &key, const Ciphertext &ct,
                                size_t warmup, size_t iterations) {
  checkSecret(key);
  const Context &context = *key.context;
  checkCiphertext(context, ct);
  std::vector<double> microseconds;
  std::vector<uint64_t> last;
  {
    std::lock_guard<std::mutex> guard(clientLock());
    GpuContext &g = gpuContextFor(key.context);
    DecryptionBuffers buffers(g, key, ct, /*keepPristine=*/true);
    microseconds = timeOnStream(
        g, warmup, iterations, "decryption",
        [&] { resetDecryption(g, buffers); },
        [&] { decryptOnDevice(g, buffers); });
    last.resize(g.n);
    buffers.m.download(last.data(), g.n, "a plaintext");
    finish(g, "downloading the last timed decryption");
  }
  // The last timed run must have computed what the CPU reference computes.
  if (ringfuse::runtime::decrypt(key, ct).coefficients != last)
    throw Error("timeDecrypt: the last timed decryption differs from the CPU "
                "reference's plaintext");
  return microseconds;
}

} // namespace ringfuse::runtime::gpu
