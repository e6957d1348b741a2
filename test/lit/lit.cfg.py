# lit configuration for ringfuse's IR tests (one folder per dialect and per pass).
import os

import lit.formats

config.name = "ringfuse"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ringfuse_obj_root, "test", "lit")

# ringfuse-opt from this build first, then LLVM's FileCheck and not.
config.environment["PATH"] = os.pathsep.join(
    [config.ringfuse_tools_dir, config.llvm_tools_dir, os.environ.get("PATH", "")]
)

# Emitted C++ is compiled against the runtime's headers.
config.substitutions.append(
    ("%ringfuse_runtime_include", os.path.join(config.ringfuse_source_root, "runtime", "include"))
)
