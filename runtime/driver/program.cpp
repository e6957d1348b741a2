//===- program.cpp - a compiled circuit: load, bind, run ------------------===//
//
// The facade of program.h. Loading reads the manifest into the program's
// state (manifest_loader.cpp) and picks the driver of the device asked for
// (driver.h); binding and running check keys and inputs the same way for
// every driver (run_checks.cpp) and hand the work to the driver. A batch
// runs many instances over worker threads, each on a state of its own.
//
//===----------------------------------------------------------------------===//
#include "driver.h"
#include "manifest_loader.h"
#include "prepared_inputs.h"
#include "run_checks.h"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/parallel.h"

#include <algorithm>
#include <set>

namespace ringfuse::runtime {
using namespace detail;

namespace {
/// A CUDA batch's default workers: each a host thread with a stream of its
/// own, enough launches in flight to fill the GPU with small instances.
constexpr size_t kCudaBatchWorkers = 8;

/// A run whose inputs and keys were checked: the driver's run, the outputs
/// checked.
std::vector<Ciphertext> runPlaced(RfRuntime &s,
                                  const std::vector<ProgramInput> &inputs) {
  s.driver->placeKeys(/*force=*/false);
  std::vector<Ciphertext> outputs =
      s.driver->run(DriverInputs(s, inputs).inputs());
  checkOutputs(s, outputs);
  return outputs;
}

/// A run: the checks first, the driver's run, the outputs checked.
std::vector<Ciphertext> runChecked(RfRuntime &s,
                                   const std::vector<ProgramInput> &inputs) {
  checkRun(s, inputs);
  return runPlaced(s, inputs);
}

} // namespace

const char *deviceName(Device device) {
  return device == Device::Cuda ? "cuda" : "cpu";
}

Program::Program(std::unique_ptr<RfRuntime> state) : state_(std::move(state)) {}
Program::Program(Program &&) noexcept = default;
Program &Program::operator=(Program &&) noexcept = default;
Program::~Program() = default;

Program Program::fromFunctions(RfManifestFunction manifest, RfRunFunction run,
                               Device device) {
  return fromFunctions(manifest, run, device, nullptr);
}

Program Program::fromFunctions(RfManifestFunction manifestFunction,
                               RfRunFunction runFunction, Device device,
                               std::shared_ptr<void> library) {
  if (!manifestFunction || !runFunction)
    throw Error("a program needs both ringfuse_manifest and ringfuse_run");
  const RfManifest *manifest = manifestFunction();
  if (!manifest)
    throw Error("ringfuse_manifest() returned a null manifest");
  if (manifest->abi_version != RINGFUSE_PROGRAM_ABI_VERSION)
    throw Error("the program was compiled for runtime ABI version " +
                std::to_string(manifest->abi_version) +
                ", but this runtime implements version " +
                std::to_string(RINGFUSE_PROGRAM_ABI_VERSION) +
                ": compile the circuit again with this ringfuse");
  auto state = std::make_unique<RfRuntime>();
  state->library = std::move(library);
  state->manifestFunction = manifestFunction;
  state->runFunction = runFunction;
  state->name = manifest->name ? manifest->name : "";
  state->variant = manifest->variant ? manifest->variant : "";
  state->device = device;
  try {
    // The compiler's #bfv.variant names its variants; the runtime only
    // reports it, so it asks no more than a short lowercase name.
    if (state->variant.size() > 16 ||
        !std::all_of(state->variant.begin(), state->variant.end(),
                     [](char c) { return c >= 'a' && c <= 'z'; }))
      throw Error("the manifest names the variant \"" + state->variant.substr(0, 32) +
                  "\"; expected a variant's name (up to 16 lowercase letters)");
    loadManifest(*manifest, *state);
    state->driver =
        device == Device::Cuda ? makeCudaDriver(*state) : makeCpuDriver(*state);
  } catch (const OutOfDeviceMemory &e) { // keeps its kind: a MemoryError
    throw OutOfDeviceMemory(programLabel(*state) + ": " + e.what());
  } catch (const OutOfHostMemory &e) { // keeps its kind: a MemoryError
    throw OutOfHostMemory(programLabel(*state) + ": " + e.what());
  } catch (const Error &e) {
    throw Error(programLabel(*state) + ": " + e.what());
  }
  return Program(std::move(state));
}

const ContextPtr &Program::context() const { return state_->context; }
Device Program::device() const { return state_->device; }
const std::string &Program::name() const { return state_->name; }
const std::string &Program::variant() const { return state_->variant; }
bool Program::insecure() const { return state_->context->insecure(); }
size_t Program::inputCount() const { return state_->inputs.size(); }
size_t Program::outputCount() const { return state_->outputs.size(); }

bool Program::inputIsPlaintext(size_t input) const {
  return state_->inputs.at(input).plaintext;
}

size_t Program::inputComponents(size_t input) const {
  return state_->inputs.at(input).components;
}

size_t Program::outputComponents(size_t output) const {
  return state_->outputs.at(output).components;
}

bool Program::needsRelinKey() const {
  const auto &elements = state_->keyElements;
  return std::find(elements.begin(), elements.end(), 0) != elements.end();
}

std::vector<uint64_t> Program::requiredGaloisElements() const {
  std::set<uint64_t> elements(state_->keyElements.begin(),
                              state_->keyElements.end());
  elements.erase(0);
  return {elements.begin(), elements.end()};
}

void Program::bind(const RelinKey *relin, const GaloisKeys *galois) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  bindKeys(*state_, relin, galois);
  state_->driver->placeKeys(/*force=*/true);
}

std::vector<Ciphertext> Program::run(const std::vector<ProgramInput> &inputs,
                                     const RelinKey *relin,
                                     const GaloisKeys *galois) {
  // One lock for both: another thread's bind() must not come in between.
  // (The CUDA driver's run uploads the keys that changed since the last.)
  std::lock_guard<std::mutex> lock(state_->mutex);
  bindKeys(*state_, relin, galois);
  return runChecked(*state_, inputs);
}

std::vector<CiphertextBatch>
Program::runBatch(const std::vector<BatchArgument> &arguments,
                  const RelinKey *relin, const GaloisKeys *galois,
                  size_t threads, const BatchProgress &progress) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  RfRuntime &s = *state_;
  bindKeys(s, relin, galois);
  const size_t count = checkBatchArguments(s, arguments);
  if (!s.keyElements.empty() && !s.boundKeys.front())
    bindKeys(s, nullptr, nullptr); // never bound: throws the missing key
  const Placement placement =
      std::any_of(arguments.begin(), arguments.end(),
                  [](const BatchArgument &argument) {
                    const auto *batch =
                        std::get_if<const CiphertextBatch *>(&argument);
                    return batch && (*batch)->placement() == Placement::Device;
                  })
          ? Placement::Device
          : Placement::Host;
  if (s.driver->runsInstances()) {
    s.driver->placeKeys(/*force=*/false);
    PreparedBatch prepared(s, arguments);
    // The driver checks the outputs where they are (on the GPU).
    return s.driver->runBatch(prepared.arguments(), count, placement, progress);
  }
  const size_t workers = workersFor(
      count,
      threads == 0 && s.device == Device::Cuda ? kCudaBatchWorkers : threads);
  if (s.replicas.size() < workers - 1)
    s.replicas.resize(workers - 1);
  // Worker w > 0 runs on replica w - 1, making it on its first instance:
  // loading builds the plans and tables, work worth spreading too.
  auto stateOf = [&](size_t w) -> RfRuntime & {
    if (w == 0)
      return s;
    std::unique_ptr<RfRuntime> &replica = s.replicas[w - 1];
    if (!replica) {
      try {
        replica = std::move(fromFunctions(s.manifestFunction, s.runFunction,
                                          s.device, s.library)
                                .state_);
      } catch (const std::exception &e) {
        throw Error(std::string("a replica of the program for a batch "
                                "worker could not be made: ") +
                    e.what());
      }
    }
    replica->boundKeys = s.boundKeys; // checked by bindKeys above
    return *replica;
  };
  std::vector<CiphertextBatch> outputs;
  for (const ValueLayout &layout : s.outputs)
    outputs.push_back(CiphertextBatch::allocate(s.context, layout.components,
                                                count, Placement::Host));
  std::mutex reporting;
  size_t finished = 0;
  const size_t every = std::max<size_t>(1, count / 8);
  parallelFor(count, workers, "instance", [&](size_t w, size_t i) {
    // Instance i's inputs: its ciphertexts copied out of host batches (or
    // seen in place in GPU memory), its plaintexts.
    std::vector<Ciphertext> copies;
    std::vector<DeviceCiphertext> onDevice;
    copies.reserve(arguments.size());
    onDevice.reserve(arguments.size());
    std::vector<ProgramInput> inputs;
    for (const BatchArgument &argument : arguments) {
      if (const auto *plaintexts =
              std::get_if<std::vector<const Plaintext *>>(&argument)) {
        inputs.push_back((*plaintexts)[plaintexts->size() == 1 ? 0 : i]);
      } else if (const CiphertextBatch &batch =
                     *std::get<const CiphertextBatch *>(argument);
                 batch.placement() == Placement::Device) {
        const uint64_t *words = batch.words() + (batch.count() == 1 ? 0 : i) *
                                                    batch.instanceWords();
        onDevice.push_back(DeviceCiphertext{
            batch.context(), batch.components(),
            std::shared_ptr<uint64_t>(batch.sharedWords(),
                                      const_cast<uint64_t *>(words))});
        inputs.push_back(&onDevice.back());
      } else {
        copies.push_back(batch.ciphertext(batch.count() == 1 ? 0 : i));
        inputs.push_back(&copies.back());
      }
    }
    std::vector<Ciphertext> results = runPlaced(stateOf(w), inputs);
    for (size_t v = 0; v < results.size(); ++v)
      std::copy(results[v].data.begin(), results[v].data.end(),
                outputs[v].mutableWords() + i * outputs[v].instanceWords());
    if (!progress)
      return;
    std::lock_guard<std::mutex> lock(reporting);
    if (++finished % every == 0 || finished == count)
      progress(finished);
  });
  for (CiphertextBatch &output : outputs)
    output = output.to(placement);
  return outputs;
}

std::vector<DeviceCiphertext>
Program::runOnDevice(const std::vector<ProgramInput> &inputs,
                     const RelinKey *relin, const GaloisKeys *galois) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  bindKeys(*state_, relin, galois);
  checkRun(*state_, inputs);
  state_->driver->placeKeys(/*force=*/false);
  return state_->driver->runOnDevice(DriverInputs(*state_, inputs).inputs());
}

std::vector<Ciphertext> Program::run(const std::vector<ProgramInput> &inputs) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return runChecked(*state_, inputs);
}

std::vector<double> Program::timeRuns(const std::vector<ProgramInput> &inputs,
                                      size_t warmup, size_t iterations) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  checkRun(*state_, inputs);
  state_->driver->placeKeys(/*force=*/false);
  return state_->driver->timeRuns(DriverInputs(*state_, inputs).inputs(),
                                  warmup, iterations);
}

std::vector<double> Program::timeBatch(const std::vector<ProgramInput> &inputs,
                                       size_t count, size_t warmup,
                                       size_t iterations) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  checkRun(*state_, inputs);
  state_->driver->placeKeys(/*force=*/false);
  return state_->driver->timeBatch(DriverInputs(*state_, inputs).inputs(),
                                   count, warmup, iterations);
}

bool Program::replaysGraph() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->driver->replaysGraph();
}

} // namespace ringfuse::runtime