//===- circuit_main.cpp - the main of a standalone circuit executable -----===//
//
// `ringfusec circuit.py -o circuit` links this file with the program the
// compiler emitted (its ringfuse_manifest and ringfuse_run) and the runtime
// library into one executable, the server side of a circuit:
//
//   ./circuit --keys eval.rfkeys --in x.rfct y.rfct w.rfpt --out z.rfct
//
// It holds no secret: evaluation keys (KeySet.save_evaluation_keys), input
// ciphertexts and plaintexts (Ciphertext.save, Plaintext.save) in, output
// ciphertexts out. Every file is loaded under the program's own parameter
// set, so a file made for other parameters, of the wrong kind, truncated or
// corrupted is an error on stderr and a nonzero exit, never a wrong answer.
//
// Not part of the runtime library (it defines main); it lives apart from
// runtime/driver/ so the library's source glob does not pick it up.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/program.h"
#include "ringfuse/runtime/serialize.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

// Defined by the emitted program linked into this executable.
extern "C" const RfManifest *ringfuse_manifest(void);
extern "C" void ringfuse_run(RfRuntime *runtime, const RfKernels *kernels);

namespace {
using namespace ringfuse::runtime;

constexpr int kRuntimeFailure = 1, kUsageError = 2;

/// A mistake in the command line (exit status 2, with a pointer to --help).
struct UsageError {
  std::string message;
};

struct Options {
  bool help = false, describe = false;
  std::string keys, writeParams;
  std::vector<std::string> inputs, outputs;
};

bool isOption(const char *arg) { return std::strncmp(arg, "--", 2) == 0; }

/// The paths after `--in` or `--out` up to the next option; the option may
/// also be repeated (`--out a --out b`).
size_t takePaths(int argc, char **argv, int &i, std::vector<std::string> &into,
                 const std::string &option) {
  size_t taken = 0;
  while (i + 1 < argc && !isOption(argv[i + 1])) {
    into.push_back(argv[++i]);
    ++taken;
  }
  if (taken == 0)
    throw UsageError{option + " needs at least one path after it"};
  return taken;
}

/// The path after an option that takes one, given once.
void takeValue(int argc, char **argv, int &i, std::string &into,
               const std::string &option) {
  if (!into.empty())
    throw UsageError{option + " is given twice; give it once"};
  if (i + 1 >= argc || isOption(argv[i + 1]))
    throw UsageError{option + " needs a path after it"};
  into = argv[++i];
  if (into.empty())
    throw UsageError{option + " needs a nonempty path"};
}

Options parse(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h")
      options.help = true;
    else if (arg == "--describe")
      options.describe = true;
    else if (arg == "--keys")
      takeValue(argc, argv, i, options.keys, arg);
    else if (arg == "--write-params")
      takeValue(argc, argv, i, options.writeParams, arg);
    else if (arg == "--in")
      takePaths(argc, argv, i, options.inputs, arg);
    else if (arg == "--out")
      takePaths(argc, argv, i, options.outputs, arg);
    else
      throw UsageError{"unknown argument '" + arg + "'"};
  }
  return options;
}

std::string inputKind(const Program &program, size_t input) {
  return program.inputIsPlaintext(input) ? "plaintext" : "ciphertext";
}

std::string inputKinds(const Program &program) {
  std::string kinds;
  for (size_t i = 0; i < program.inputCount(); ++i)
    kinds += (i ? ", " : "") + inputKind(program, i);
  return kinds;
}

std::string keysNeeded(const Program &program) {
  std::string keys = program.needsRelinKey() ? "relinearization key" : "";
  std::vector<uint64_t> elements = program.requiredGaloisElements();
  if (!elements.empty()) {
    keys += keys.empty() ? "" : "; ";
    keys += "Galois keys for elements";
    for (size_t i = 0; i < elements.size(); ++i)
      keys += (i ? ", " : " ") + std::to_string(elements[i]);
  }
  return keys.empty() ? "none" : keys;
}

void printHelp(const Program &program, const char *self) {
  std::cout
      << "usage: " << self << " --keys EVAL.rfkeys --in INPUT... --out OUTPUT...\n"
      << "       " << self << " --describe | --write-params PATH | --help\n\n"
      << "Runs the compiled circuit '" << program.name()
      << "' on encrypted inputs (the server side of ringfuse).\n\n"
      << "  --keys PATH          evaluation keys, as KeySet.save_evaluation_keys "
         "writes them\n"
      << "  --in PATH...         the inputs in the circuit's order: a ciphertext "
         "(Ciphertext.save)\n"
      << "                       or, for a plaintext input, a plaintext "
         "(Plaintext.save)\n"
      << "  --out PATH...        where to write each output ciphertext, in order\n"
      << "  --describe           print the circuit's inputs, outputs and keys as "
         "JSON\n"
      << "  --write-params PATH  write its parameter set (for rf.Params.load)\n"
      << "  --help               this text\n\n"
      << "This circuit: " << program.context()->describe() << "\n"
      << "  inputs:  " << inputKinds(program) << "\n"
      << "  outputs: " << program.outputCount() << " ciphertext"
      << (program.outputCount() == 1 ? "" : "s") << "\n"
      << "  keys:    " << keysNeeded(program) << "\n";
}

std::string jsonString(const std::string &text) {
  std::ostringstream out;
  out << '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out << '\\' << c;
    else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out << escaped;
    } else
      out << c;
  }
  out << '"';
  return out.str();
}

void printDescription(const Program &program) {
  std::cout << "{\"name\": " << jsonString(program.name())
            << ", \"parameters\": " << jsonString(program.context()->describe())
            << ", \"inputs\": [";
  for (size_t i = 0; i < program.inputCount(); ++i)
    std::cout << (i ? ", " : "") << jsonString(inputKind(program, i));
  std::cout << "], \"outputs\": " << program.outputCount()
            << ", \"relinearization_key\": "
            << (program.needsRelinKey() ? "true" : "false")
            << ", \"galois_elements\": [";
  std::vector<uint64_t> elements = program.requiredGaloisElements();
  for (size_t i = 0; i < elements.size(); ++i)
    std::cout << (i ? ", " : "") << elements[i];
  std::cout << "]}\n";
}

/// Reads a file of the program's parameters no further than its header
/// allows (readObjectFile) and runs a loader on it, with the file's path in
/// front of the loader's message.
template <typename Load>
auto loadFile(const std::string &path, const ContextPtr &context, Load load) {
  std::vector<uint8_t> bytes = readObjectFile(path, context);
  try {
    return load(bytes);
  } catch (const Error &error) {
    throw Error(path + ": " + error.what());
  }
}

/// Ciphertexts and plaintexts in manifest order; the storage the inputs point into.
struct LoadedInputs {
  std::vector<Ciphertext> ciphertexts;
  std::vector<Plaintext> plaintexts;
  std::vector<ProgramInput> pointers;
};

LoadedInputs loadInputs(const Program &program, const std::vector<std::string> &paths) {
  if (paths.size() != program.inputCount())
    throw UsageError{"the circuit takes " + std::to_string(program.inputCount()) +
                     " inputs (" + inputKinds(program) + "), got " +
                     std::to_string(paths.size()) + " --in paths"};
  const ContextPtr &context = program.context();
  LoadedInputs loaded;
  // Reserved, so that pointers into the vectors stay valid while they fill.
  loaded.ciphertexts.reserve(paths.size());
  loaded.plaintexts.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    const bool plaintext = program.inputIsPlaintext(i);
    loadFile(paths[i], context, [&](const std::vector<uint8_t> &bytes) {
      const ObjectKind expected =
          plaintext ? ObjectKind::Plaintext : ObjectKind::Ciphertext;
      const ObjectKind found = peekKind(bytes.data(), bytes.size());
      if (found != expected)
        throw Error("input " + std::to_string(i + 1) + " of the circuit is a " +
                    inputKind(program, i) + ", but the file holds " +
                    (found == ObjectKind::GaloisKeys ||
                             found == ObjectKind::EvaluationKeys
                         ? ""
                         : "a ") +
                    objectKindName(found));
      if (plaintext) {
        loaded.plaintexts.push_back(
            deserializePlaintext(context, bytes.data(), bytes.size()));
        loaded.pointers.push_back(&loaded.plaintexts.back());
      } else {
        loaded.ciphertexts.push_back(
            deserializeCiphertext(context, bytes.data(), bytes.size()));
        loaded.pointers.push_back(&loaded.ciphertexts.back());
      }
      return 0;
    });
  }
  return loaded;
}

int run(const Options &options, Program &program) {
  if (options.inputs.empty() && options.outputs.empty())
    throw UsageError{"nothing to do: give --in and --out (or --describe, "
                     "--write-params, --help)"};
  if (options.outputs.size() != program.outputCount())
    throw UsageError{"the circuit has " + std::to_string(program.outputCount()) +
                     " output" + (program.outputCount() == 1 ? "" : "s") + ", got " +
                     std::to_string(options.outputs.size()) + " --out paths"};
  const bool needsKeys =
      program.needsRelinKey() || !program.requiredGaloisElements().empty();
  if (needsKeys && options.keys.empty())
    throw UsageError{"the circuit needs evaluation keys (" + keysNeeded(program) +
                     "): pass --keys EVAL.rfkeys"};

  EvaluationKeys keys{program.context(), std::nullopt, std::nullopt};
  if (!options.keys.empty())
    keys = loadFile(options.keys, program.context(),
                    [&](const std::vector<uint8_t> &bytes) {
                      return deserializeEvaluationKeys(
                          program.context(), bytes.data(), bytes.size());
                    });
  try {
    program.bind(keys.relin ? &*keys.relin : nullptr,
                 keys.galois ? &*keys.galois : nullptr);
  } catch (const Error &error) {
    if (options.keys.empty())
      throw;
    throw Error(options.keys + ": " + error.what());
  }
  LoadedInputs inputs = loadInputs(program, options.inputs);
  std::vector<Ciphertext> outputs = program.run(inputs.pointers);
  for (size_t i = 0; i < outputs.size(); ++i)
    writeFile(options.outputs[i], serialize(outputs[i]));
  return 0;
}
} // namespace

// Where the linked program's schedule runs: ringfusec defines it as Cuda for a
// program emitted with --emit-cuda (whose schedule launches GPU kernels).
#ifndef RINGFUSE_CIRCUIT_DEVICE
#define RINGFUSE_CIRCUIT_DEVICE Cpu
#endif

int main(int argc, char **argv) {
  const char *self = argc > 0 ? argv[0] : "circuit";
  try {
    Program program = Program::fromFunctions(ringfuse_manifest, ringfuse_run,
                                             Device::RINGFUSE_CIRCUIT_DEVICE);
    const Options options = parse(argc, argv);
    if (options.help) {
      printHelp(program, self);
      return 0;
    }
    if (options.describe)
      printDescription(program);
    if (!options.writeParams.empty())
      writeFile(options.writeParams, serialize(*program.context()));
    if (options.describe || !options.writeParams.empty())
      if (options.inputs.empty() && options.outputs.empty())
        return 0;
    return run(options, program);
  } catch (const UsageError &error) {
    std::cerr << self << ": error: " << error.message << "\nrun '" << self
              << " --help' for usage\n";
    return kUsageError;
  } catch (const std::exception &error) {
    std::cerr << self << ": error: " << error.what() << "\n";
    return kRuntimeFailure;
  }
}
