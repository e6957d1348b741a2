//===- runtime_module.cpp - ringfuse._runtime, the runtime for Python -----===//
//
// Thin bindings: the Python package (params.py, keys.py) validates user input
// and gives the API its shape; these functions move arrays and release the
// GIL around the heavy work.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/ciphertext_batch.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/gpu_client.h"
#include "ringfuse/runtime/parallel.h"
#include "ringfuse/runtime/program.h"
#include "ringfuse/runtime/serialize.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace ringfuse::runtime;

namespace {
/// pybind11 holds shared_ptr<T>, not shared_ptr<const T>: the context is
/// immutable either way (it has only const members).
using ContextHolder = std::shared_ptr<Context>;
ContextHolder hold(const ContextPtr &context) {
  return std::const_pointer_cast<Context>(context);
}

using UInt64Array = py::array_t<uint64_t, py::array::c_style>;

UInt64Array toArray(const std::vector<uint64_t> &values) {
  UInt64Array array(values.size());
  std::copy(values.begin(), values.end(), array.mutable_data());
  return array;
}

py::bytes toBytes(const std::vector<uint8_t> &bytes) {
  return py::bytes(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

/// Deserializers take (context, data, size); this adapts them to Python bytes.
template <typename T, T (*Load)(const ContextPtr &, const uint8_t *, size_t)>
T loadFromBytes(const ContextHolder &context, const py::bytes &data) {
  std::string_view view = data;
  return Load(context, reinterpret_cast<const uint8_t *>(view.data()),
              view.size());
}

template <typename T> py::bytes saveToBytes(const T &object) {
  return toBytes(serialize(object));
}

/// A program's inputs from a Python sequence of Ciphertexts and Plaintexts;
/// `held` keeps a reference to each for as long as the run needs it (release
/// them with the GIL held). `where` prefixes type errors ("instance 3: ").
std::vector<ProgramInput> programInputs(const py::sequence &inputs,
                                        std::vector<py::object> &held,
                                        const std::string &where = "") {
  std::vector<ProgramInput> native;
  for (size_t i = 0; i < inputs.size(); ++i) {
    py::object item = inputs[i];
    if (py::isinstance<Ciphertext>(item))
      native.push_back(item.cast<const Ciphertext *>());
    else if (py::isinstance<Plaintext>(item))
      native.push_back(item.cast<const Plaintext *>());
    else if (py::isinstance<DeviceCiphertext>(item))
      native.push_back(item.cast<const DeviceCiphertext *>());
    else
      throw py::type_error(
          where + "program input " + std::to_string(i) +
          " must be a Ciphertext, a DeviceCiphertext or a Plaintext, got " +
          std::string(py::str(py::type::of(item).attr("__name__"))));
    held.push_back(std::move(item));
  }
  return native;
}

/// A batch's ciphertexts as objects of their own, in host memory.
std::vector<Ciphertext> ciphertextsOf(const CiphertextBatch &batch) {
  const CiphertextBatch host = batch.to(Placement::Host);
  std::vector<Ciphertext> items(host.count());
  parallelFor(items.size(), workersFor(items.size(), 0), "ciphertext",
              [&](size_t, size_t k) { items[k] = host.ciphertext(k); });
  return items;
}

std::vector<const Ciphertext *>
pointersTo(const std::vector<Ciphertext> &items) {
  std::vector<const Ciphertext *> pointers;
  for (const Ciphertext &item : items)
    pointers.push_back(&item);
  return pointers;
}

/// A batch encryption on the CPU (encryptPublicBatch, encryptSymmetricBatch)
/// as a CiphertextBatch in host memory.
template <typename Key, auto Encrypt>
CiphertextBatch encryptedBatch(const Key &key,
                               const std::vector<Plaintext> &plaintexts,
                               Prng &prng, size_t threads) {
  return CiphertextBatch::fromCiphertexts(
      pointersTo(Encrypt(key, plaintexts, prng, threads)));
}

Placement placementNamed(const std::string &name) {
  if (name == "host")
    return Placement::Host;
  if (name == "device")
    return Placement::Device;
  throw Error("a batch is placed in 'host' or 'device' memory, not '" + name +
              "'");
}

/// A batch's arguments from Python: per program input, a CiphertextBatch or
/// a sequence of Plaintexts (one for all instances, or one per instance).
std::vector<BatchArgument> batchArguments(const py::sequence &arguments,
                                          std::vector<py::object> &held) {
  std::vector<BatchArgument> native;
  for (size_t v = 0; v < arguments.size(); ++v) {
    py::object item = arguments[v];
    if (py::isinstance<CiphertextBatch>(item)) {
      native.push_back(item.cast<const CiphertextBatch *>());
    } else if (py::isinstance<py::sequence>(item) &&
               !py::isinstance<py::str>(item)) {
      std::vector<const Plaintext *> plaintexts;
      for (py::handle plaintext : item.cast<py::sequence>()) {
        if (!py::isinstance<Plaintext>(plaintext))
          throw py::type_error(
              "batch argument " + std::to_string(v) +
              ": a sequence of Plaintexts holds a " +
              std::string(py::str(py::type::of(plaintext).attr("__name__"))));
        plaintexts.push_back(plaintext.cast<const Plaintext *>());
      }
      native.push_back(std::move(plaintexts));
    } else {
      throw py::type_error(
          "batch argument " + std::to_string(v) +
          " must be a CiphertextBatch or a sequence of Plaintexts, got " +
          std::string(py::str(py::type::of(item).attr("__name__"))));
    }
    held.push_back(std::move(item));
  }
  return native;
}

Prng prngFromSeed(const py::bytes &seed) {
  std::string_view view = seed;
  return Prng(Seed::fromBytes(reinterpret_cast<const uint8_t *>(view.data()),
                              view.size()));
}
} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "The ringfuse runtime (BFV math core); use the ringfuse package.";
  // Python sees runtime errors as ValueError (bad input, not a bug).
  py::register_exception<Error>(m, "Error", PyExc_ValueError);
  // Registered after Error, so tried first: a GPU allocation that did not fit
  // is ringfuse.OutOfDeviceMemory (a MemoryError), defined in Python so that
  // users may catch it without loading the runtime; host memory that is not
  // there is a plain MemoryError.
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown)
        std::rethrow_exception(thrown);
    } catch (const OutOfDeviceMemory &error) {
      py::object type =
          py::module_::import("ringfuse.errors").attr("OutOfDeviceMemory");
      PyErr_SetString(type.ptr(), error.what());
    } catch (const OutOfHostMemory &error) {
      PyErr_SetString(PyExc_MemoryError, error.what());
    }
  });

  py::class_<Context, ContextHolder>(m, "Context")
      .def_static(
          "create",
          [](size_t n, uint64_t t, std::vector<unsigned> q,
             std::vector<unsigned> p, size_t dnum, bool allowInsecure) {
            ParameterRequest request{n, t, std::move(q), std::move(p), dnum,
                                     allowInsecure};
            py::gil_scoped_release release;
            return hold(Context::create(request));
          })
      .def_property_readonly("degree", &Context::degree)
      .def_property_readonly("plaintext_modulus", &Context::plaintextModulus)
      .def_property_readonly("coeff_modulus",
                             [](const Context &c) { return c.q().values(); })
      .def_property_readonly("special_modulus",
                             [](const Context &c) { return c.p().values(); })
      .def_property_readonly("dnum", &Context::dnum)
      .def_property_readonly("batching", &Context::supportsBatching)
      .def_property_readonly("insecure", &Context::insecure)
      .def_property_readonly("fingerprint", &Context::fingerprint)
      .def_property_readonly("log_q", [](const Context &c) {
        return c.q().product().bitLength();
      })
      .def_property_readonly("log_qp", [](const Context &c) {
        return c.qp().product().bitLength();
      })
      .def("describe", &Context::describe)
      .def("serialize", [](const Context &c) { return toBytes(serialize(c)); })
      .def_static("deserialize", [](const py::bytes &data) {
        std::string_view view = data;
        return hold(deserializeParameters(
            reinterpret_cast<const uint8_t *>(view.data()), view.size()));
      });

  py::class_<Prng>(m, "Prng")
      .def(py::init<>(), "Seeded from the operating system (getrandom).")
      .def_static("from_seed", &prngFromSeed,
                  "Reproducible: 32 bytes of seed, for tests.");

  py::class_<Plaintext>(m, "Plaintext")
      .def_property_readonly("context", [](const Plaintext &p) { return hold(p.context); })
      .def_property_readonly("coefficients", [](const Plaintext &p) {
        return toArray(p.coefficients);
      })
      .def("serialize", &saveToBytes<Plaintext>)
      .def_static("deserialize", &loadFromBytes<Plaintext, deserializePlaintext>);

  py::class_<Ciphertext>(m, "Ciphertext")
      .def_property_readonly("context", [](const Ciphertext &c) { return hold(c.context); })
      .def_property_readonly("size", [](const Ciphertext &c) { return c.size; })
      .def_property_readonly("data", [](const Ciphertext &c) { return toArray(c.data); })
      .def("serialize", &saveToBytes<Ciphertext>)
      .def_static("deserialize", &loadFromBytes<Ciphertext, deserializeCiphertext>);

  py::class_<SecretKey>(m, "SecretKey")
      .def_property_readonly("coefficients",
                             [](const SecretKey &k) {
                               return std::vector<int>(k.coefficients.begin(),
                                                       k.coefficients.end());
                             })
      .def("serialize", &saveToBytes<SecretKey>)
      .def_static("deserialize", &loadFromBytes<SecretKey, deserializeSecretKey>);
  py::class_<PublicKey>(m, "PublicKey")
      .def("serialize", &saveToBytes<PublicKey>)
      .def_static("deserialize", &loadFromBytes<PublicKey, deserializePublicKey>);
  py::class_<RelinKey>(m, "RelinKey")
      .def("serialize", &saveToBytes<RelinKey>)
      .def_static("deserialize", &loadFromBytes<RelinKey, deserializeRelinKey>);
  py::class_<GaloisKeys>(m, "GaloisKeys")
      .def_property_readonly("elements",
                             [](const GaloisKeys &k) {
                               std::vector<uint64_t> elements;
                               for (const auto &entry : k.keys)
                                 elements.push_back(entry.first);
                               return elements;
                             })
      .def("serialize", &saveToBytes<GaloisKeys>)
      .def_static("deserialize", &loadFromBytes<GaloisKeys, deserializeGaloisKeys>);

  m.def(
      "read_object_file",
      [](const std::string &path, const std::shared_ptr<Context> &context) {
        std::vector<uint8_t> bytes;
        {
          py::gil_scoped_release release;
          bytes = readObjectFile(path, context);
        }
        return toBytes(bytes);
      },
      py::arg("path"), py::arg("context").none(true),
      "A file's one object, read no further than its header announces "
      "(serialize.h's readObjectFile); context None for a parameter set.");

  // Evaluation keys: a server's relinearization and Galois keys in one file
  // (serialize.h, object kind 8); either may be None.
  m.def(
      "serialize_evaluation_keys",
      [](const ContextHolder &context, const RelinKey *relin,
         const GaloisKeys *galois) {
        EvaluationKeys keys{context, std::nullopt, std::nullopt};
        if (relin) keys.relin = *relin;
        if (galois) keys.galois = *galois;
        return toBytes(serialize(keys));
      },
      py::arg("context"), py::arg("relin_key").none(true),
      py::arg("galois_keys").none(true));
  m.def(
      "deserialize_evaluation_keys",
      [](const ContextHolder &context, const py::bytes &data) {
        std::string_view view = data;
        EvaluationKeys keys = deserializeEvaluationKeys(
            context, reinterpret_cast<const uint8_t *>(view.data()), view.size());
        py::object relin = py::none(), galois = py::none();
        if (keys.relin) relin = py::cast(std::move(*keys.relin));
        if (keys.galois) galois = py::cast(std::move(*keys.galois));
        return py::make_tuple(relin, galois);
      },
      py::arg("context"), py::arg("data"),
      "(RelinKey or None, GaloisKeys or None) of an evaluation keys file.");

  // Ciphertext batches: many ciphertexts of one parameter set in one object
  // (serialize.h, object kind 9), a batch's inputs or outputs.
  py::class_<CiphertextBatch>(m, "CiphertextBatch")
      .def_static(
          "from_ciphertexts",
          [](const std::vector<const Ciphertext *> &items,
             const std::string &placement) {
            const Placement where = placementNamed(placement);
            py::gil_scoped_release release;
            return CiphertextBatch::fromCiphertexts(items, where);
          },
          py::arg("ciphertexts"), py::arg("placement") = "host")
      .def_property_readonly("count", &CiphertextBatch::count)
      .def_property_readonly("components", &CiphertextBatch::components)
      .def_property_readonly(
          "placement",
          [](const CiphertextBatch &b) { return placementName(b.placement()); })
      .def_property_readonly(
          "context", [](const CiphertextBatch &b) { return hold(b.context()); })
      .def("ciphertext", &CiphertextBatch::ciphertext, py::arg("index"),
           py::call_guard<py::gil_scoped_release>())
      .def(
          "slice",
          [](const CiphertextBatch &b, size_t first, size_t count) {
            py::gil_scoped_release release;
            return b.slice(first, count, b.placement());
          },
          py::arg("first"), py::arg("count"))
      .def(
          "to",
          [](const CiphertextBatch &b, const std::string &placement) {
            const Placement where = placementNamed(placement);
            py::gil_scoped_release release;
            return b.to(where);
          },
          py::arg("placement"));

  // Ciphertext batches in the saved format (serialize.h, object kind 9).
  m.def(
      "serialize_ciphertext_batch",
      [](const CiphertextBatch &batch) {
        std::vector<uint8_t> bytes;
        {
          py::gil_scoped_release release;
          bytes = serialize(ciphertextsOf(batch));
        }
        return toBytes(bytes);
      },
      py::arg("batch"), "The bytes of a ciphertext batch.");
  m.def(
      "deserialize_ciphertext_batch",
      [](const ContextHolder &context, const py::bytes &data) {
        std::string_view view = data; // `data` outlives the release below
        py::gil_scoped_release release;
        std::vector<Ciphertext> items = deserializeCiphertextBatch(
            context, reinterpret_cast<const uint8_t *>(view.data()),
            view.size());
        return CiphertextBatch::fromCiphertexts(pointersTo(items));
      },
      py::arg("context"), py::arg("data"),
      "The CiphertextBatch (in host memory) of a ciphertext batch's bytes.");

  auto heavy = py::call_guard<py::gil_scoped_release>();
  m.def(
      "generate_secret_key",
      [](const ContextHolder &context, Prng &prng) {
        return generateSecretKey(context, prng);
      },
      heavy);
  m.def("generate_public_key", &generatePublicKey, heavy);
  m.def("generate_relin_key", &generateRelinKey, heavy);
  m.def("generate_galois_keys", &generateGaloisKeys, heavy);
  m.def("galois_element_for_rotation", &galoisElementForRotation);
  m.def("galois_element_for_row_swap", &galoisElementForRowSwap);

  m.def("encode_slots", [](const ContextHolder &context, const UInt64Array &values) {
    return encodeSlots(context, values.data(), values.size());
  });
  m.def("encode_coefficients",
        [](const ContextHolder &context, const UInt64Array &values) {
          return encodeCoefficients(context, values.data(), values.size());
        });
  m.def("decode_slots", [](const Plaintext &p) { return toArray(decodeSlots(p)); });

  m.def("encrypt_public", &encryptPublic, heavy);
  m.def("encrypt_symmetric", &encryptSymmetric, heavy);
  m.def("decrypt", &decrypt, heavy);
  m.def("encrypt_public_batch", &encryptedBatch<PublicKey, encryptPublicBatch>,
        heavy,
        "encrypt_public of each plaintext on `threads` threads (0: all), the "
        "ciphertexts of encrypting them one after another with `prng`, as a "
        "CiphertextBatch in host memory.");
  m.def("encrypt_symmetric_batch",
        &encryptedBatch<SecretKey, encryptSymmetricBatch>, heavy);
  m.def(
      "decrypt_batch",
      [](const SecretKey &key, const CiphertextBatch &batch, size_t threads) {
        return decryptBatch(key, ciphertextsOf(batch), threads);
      },
      heavy);
  m.def(
      "decrypt_behz",
      [](const SecretKey &secret, const Ciphertext &ciphertext) {
        return decryptBehz(secret, ciphertext, BehzPlan(*ciphertext.context));
      },
      heavy);
  m.def("noise_budget", &noiseBudget, heavy);

  // The client operations on the GPU (gpu_client.h): the same objects and,
  // for the same seed, the same words as the functions above. Without a CUDA
  // device (or a CUDA build) each raises ValueError saying so.
  m.def("gpu_available", &gpu::available,
        "True if the GPU client operations can run (CUDA build, device visible).");
  m.def(
      "gpu_generate_secret_key",
      [](const ContextHolder &context, Prng &prng) {
        return gpu::generateSecretKey(context, prng);
      },
      heavy);
  m.def("gpu_generate_public_key", &gpu::generatePublicKey, heavy);
  m.def("gpu_generate_relin_key", &gpu::generateRelinKey, heavy);
  m.def("gpu_generate_galois_keys", &gpu::generateGaloisKeys, heavy);
  m.def(
      "gpu_encode_slots",
      [](const ContextHolder &context, const UInt64Array &values) {
        py::gil_scoped_release release;
        return gpu::encodeSlots(context, values.data(), values.size());
      });
  m.def("gpu_decode_slots", [](const Plaintext &p) {
    std::vector<uint64_t> slots;
    {
      py::gil_scoped_release release;
      slots = gpu::decodeSlots(p);
    }
    return toArray(slots);
  });
  m.def("gpu_encrypt_public", &gpu::encryptPublic, heavy);
  m.def("gpu_encrypt_symmetric", &gpu::encryptSymmetric, heavy);
  m.def("gpu_decrypt", &gpu::decrypt, heavy);
  // Batches: rows of slot values (a 2-D array) encoded and encrypted, and
  // ciphertexts decrypted and decoded into rows, chunks of rows a launch.
  auto rowsOf = [](const UInt64Array &rows) {
    if (rows.ndim() != 2)
      throw Error("a batch of slot values is a 2-D array of rows");
    return std::pair<size_t, size_t>(rows.shape(0), rows.shape(1));
  };
  // A batch's ciphertexts go to a CiphertextBatch in `placement` ("device":
  // GPU memory, where it stays for the programs it feeds).
  auto encryptInto = [rowsOf](const ContextPtr &context,
                              const UInt64Array &rows,
                              const std::string &placement, auto encrypt) {
    auto [count, width] = rowsOf(rows);
    const Placement where = placementNamed(placement);
    if (!context)
      throw Error("the key has no parameter set");
    if (count == 0)
      throw Error("a batch holds at least one ciphertext");
    py::gil_scoped_release release;
    CiphertextBatch batch = CiphertextBatch::allocate(context, 2, count, where);
    encrypt(rows.data(), count, width, batch.mutableWords());
    return batch;
  };
  m.def(
      "gpu_encrypt_public_slots_batch",
      [encryptInto](const PublicKey &key, const UInt64Array &rows, Prng &prng,
                    const std::string &placement) {
        return encryptInto(key.context, rows, placement,
                           [&](const uint64_t *values, size_t count,
                               size_t width, uint64_t *out) {
                             gpu::encryptPublicSlotsBatch(key, values, count,
                                                          width, prng, out);
                           });
      },
      py::arg("key"), py::arg("rows"), py::arg("prng"),
      py::arg("placement") = "device");
  m.def(
      "gpu_encrypt_symmetric_slots_batch",
      [encryptInto](const SecretKey &key, const UInt64Array &rows, Prng &prng,
                    const std::string &placement) {
        return encryptInto(key.context, rows, placement,
                           [&](const uint64_t *values, size_t count,
                               size_t width, uint64_t *out) {
                             gpu::encryptSymmetricSlotsBatch(key, values, count,
                                                             width, prng, out);
                           });
      },
      py::arg("key"), py::arg("rows"), py::arg("prng"),
      py::arg("placement") = "device");
  m.def("gpu_decrypt_slots_batch", [](const SecretKey &key,
                                      const CiphertextBatch &batch) {
    if (!key.context ||
        batch.context()->fingerprint() != key.context->fingerprint())
      throw Error("the ciphertext batch and the key belong to different "
                  "parameter sets");
    if (batch.components() != 2)
      throw Error("a batch decrypts 2-component ciphertexts; these have " +
                  std::to_string(batch.components()) + " (relinearize them)");
    const size_t n = key.context->degree(), count = batch.count();
    // Pinned (from the batches' cache), so the GPU writes the slots
    // there itself; the array keeps the memory until it is freed.
    auto *words = new std::shared_ptr<uint64_t>();
    py::capsule owner(words, [](void *held) {
      delete static_cast<std::shared_ptr<uint64_t> *>(held);
    });
    {
      py::gil_scoped_release release;
      *words = detail::allocateBatchWords(count * n, Placement::Host);
      gpu::decryptSlotsBatch(key, batch.words(), count, words->get());
    }
    return UInt64Array({count, n}, words->get(), owner);
  });
  // Device times (microseconds) of the two operations' GPU work: inputs
  // uploaded once, each run a CUDA graph timed with CUDA events
  // (gpu_client.h). The last run is checked against the CPU reference.
  m.def("gpu_time_encrypt_public", &gpu::timeEncryptPublic, heavy,
        py::arg("public_key"), py::arg("plaintext"), py::arg("prng"),
        py::arg("warmup"), py::arg("iterations"));
  m.def("gpu_time_decrypt", &gpu::timeDecrypt, heavy, py::arg("secret_key"),
        py::arg("ciphertext"), py::arg("warmup"), py::arg("iterations"));

  // Reference operations (the compiled circuits use the kernel program).
  m.def("add", &add, heavy);
  m.def("multiply_hps", &multiplyHps, heavy);
  m.def(
      "multiply_behz",
      [](const Ciphertext &a, const Ciphertext &b) {
        return multiplyBehz(a, b, BehzPlan(*a.context));
      },
      heavy);
  m.def("relinearize", &relinearize, heavy);
  m.def("apply_galois", &applyGalois, heavy);

  m.def("ciphertext_from_data",
        [](const ContextHolder &context, size_t size, const UInt64Array &data) {
          if (size < kMinCiphertextComponents ||
              size > kMaxCiphertextComponents)
            throw Error("a ciphertext has " +
                        std::to_string(kMinCiphertextComponents) + " to " +
                        std::to_string(kMaxCiphertextComponents) +
                        " components, got " + std::to_string(size));
          Ciphertext ct{context, size, std::vector<uint64_t>(data.data(), data.data() + data.size())};
          if (ct.data.size() != size * ct.componentWords())
            throw Error("ciphertext data has " + std::to_string(ct.data.size()) +
                        " residues, expected " + std::to_string(size) + " x " +
                        std::to_string(ct.componentWords()));
          for (size_t k = 0; k < size; ++k)
            for (size_t i = 0; i < context->q().size(); ++i)
              for (size_t j = 0; j < context->degree(); ++j)
                if (ct.component(k)[i * context->degree() + j] >= context->q().values()[i])
                  throw Error("ciphertext residue is not below its prime");
          return ct;
        });

  // A compiled circuit (runtime/include/ringfuse/runtime/program.h).
  m.def("cuda_available", &cudaAvailable,
        "True if this runtime has its CUDA driver and a CUDA device is visible.");
  py::class_<DeviceCiphertext>(m, "DeviceCiphertext")
      .def_property_readonly("context",
                             [](const DeviceCiphertext &c) { return hold(c.context); })
      .def_property_readonly("size", [](const DeviceCiphertext &c) { return c.size; });
  m.def("upload_ciphertext", &uploadCiphertext, py::call_guard<py::gil_scoped_release>());
  m.def("cuda_device_count", &cudaDeviceCount,
        "CUDA devices visible to this process (0 without the CUDA driver).");
  m.def(
      "cuda_memory",
      [] {
        DeviceMemoryUse use = cudaMemory();
        return py::make_tuple(use.available, use.total);
      },
      "(bytes an allocation may still get, the device's bytes) of the "
      "current GPU.");
  m.def("host_link_bytes_per_second", &hostLinkBytesPerSecond, py::arg("bytes"),
        py::arg("to_device"), py::arg("repeats") = 7,
        py::call_guard<py::gil_scoped_release>(),
        "The host link's copy rate (pinned memory, CUDA events, median).");
  m.def("download_ciphertext", &downloadCiphertext,
        py::call_guard<py::gil_scoped_release>());

  py::class_<Program>(m, "Program")
      .def_static(
          "load",
          [](const std::string &path, const std::string &device) {
            Device where = Device::Cpu;
            if (device == "cuda")
              where = Device::Cuda;
            else if (device != "cpu")
              throw Error("device must be \"cpu\" or \"cuda\", got \"" +
                          device + "\"");
            py::gil_scoped_release release;
            return Program::load(path, where);
          },
          py::arg("path"), py::arg("device") = "cpu",
          "dlopen()s a compiled program's shared library and loads it for "
          "device \"cpu\" or \"cuda\".")
      .def_property_readonly(
          "device",
          [](const Program &p) { return std::string(deviceName(p.device())); })
      .def_property_readonly("replays_graph", &Program::replaysGraph)
      .def_property_readonly("context",
                             [](const Program &p) { return hold(p.context()); })
      .def_property_readonly("name", &Program::name)
      .def_property_readonly("variant", &Program::variant)
      .def_property_readonly("insecure", &Program::insecure)
      .def_property_readonly("input_kinds",
                             [](const Program &p) {
                               std::vector<std::string> kinds;
                               for (size_t i = 0; i < p.inputCount(); ++i)
                                 kinds.push_back(p.inputIsPlaintext(i) ? "plaintext"
                                                                       : "ciphertext");
                               return kinds;
                             })
      .def_property_readonly("input_components",
                             [](const Program &p) {
                               std::vector<size_t> components;
                               for (size_t i = 0; i < p.inputCount(); ++i)
                                 components.push_back(p.inputComponents(i));
                               return components;
                             })
      .def_property_readonly("output_count", &Program::outputCount)
      .def_property_readonly("required_galois_elements",
                             &Program::requiredGaloisElements)
      .def_property_readonly("needs_relin_key", &Program::needsRelinKey)
      .def(
          "run",
          [](Program &p, const py::sequence &inputs, const RelinKey *relin,
             const GaloisKeys *galois) {
            std::vector<py::object> held;
            std::vector<ProgramInput> native = programInputs(inputs, held);
            py::gil_scoped_release release;
            return p.run(native, relin, galois);
          },
          py::arg("inputs"), py::arg("relin_key") = py::none(),
          py::arg("galois_keys") = py::none(),
          "Runs the circuit; inputs in the program's order, outputs a list of "
          "Ciphertexts.")
      .def(
          "run_batch",
          [](Program &p, const py::sequence &arguments, const RelinKey *relin,
             const GaloisKeys *galois, size_t threads,
             const py::object &progress) {
            std::vector<py::object> held;
            std::vector<BatchArgument> native = batchArguments(arguments, held);
            BatchProgress report;
            if (!progress.is_none())
              report = [&progress](size_t finished) {
                py::gil_scoped_acquire acquire;
                progress(finished);
              };
            py::gil_scoped_release release;
            return p.runBatch(native, relin, galois, threads, report);
          },
          py::arg("arguments"), py::arg("relin_key") = py::none(),
          py::arg("galois_keys") = py::none(), py::arg("threads") = 0,
          py::arg("progress") = py::none(),
          "Runs the circuit once per instance: per input, a CiphertextBatch "
          "(instance i takes its i-th ciphertext) or a list of Plaintexts "
          "(one for all, or one per instance); a CiphertextBatch per output, "
          "in GPU memory if an argument is. The CUDA driver runs chunks of "
          "instances in each launch; the CPU driver spreads them over "
          "`threads` threads (0: one per hardware thread). `progress`, if "
          "given, is called with the number of instances finished as they "
          "finish.")
      .def(
          "run_on_device",
          [](Program &p, const py::sequence &inputs, const RelinKey *relin,
             const GaloisKeys *galois) {
            std::vector<py::object> held;
            std::vector<ProgramInput> native = programInputs(inputs, held);
            py::gil_scoped_release release;
            return p.runOnDevice(native, relin, galois);
          },
          py::arg("inputs"), py::arg("relin_key") = py::none(),
          py::arg("galois_keys") = py::none(),
          "As run, but the outputs stay in GPU memory (DeviceCiphertexts).")
      .def(
          "time_runs",
          [](Program &p, const py::sequence &inputs, size_t warmup,
             size_t iterations) {
            std::vector<py::object> held;
            std::vector<ProgramInput> native = programInputs(inputs, held);
            py::gil_scoped_release release;
            return p.timeRuns(native, warmup, iterations);
          },
          py::arg("inputs"), py::arg("warmup"), py::arg("iterations"),
          "For benchmarks: binds the inputs once, runs the schedule `warmup` "
          "times, then `iterations` timed times; each timed run's duration in "
          "microseconds (CUDA events around a graph replay, or steady_clock "
          "on the CPU). Keys must be bound already (by a run with keys).")
      .def(
          "time_batch",
          [](Program &p, const py::sequence &inputs, size_t count,
             size_t warmup, size_t iterations) {
            std::vector<py::object> held;
            std::vector<ProgramInput> native = programInputs(inputs, held);
            py::gil_scoped_release release;
            return p.timeBatch(native, count, warmup, iterations);
          },
          py::arg("inputs"), py::arg("count"), py::arg("warmup"),
          py::arg("iterations"),
          "time_runs for `count` instances of the inputs in each launch (the "
          "CUDA driver): each replay's duration in microseconds, the inputs "
          "resident in GPU memory.");
}
