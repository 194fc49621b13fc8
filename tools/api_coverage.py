"""How much of torch's public API hookgrad has: for each namespace, the share of torch's
public names that hookgrad also has, and the names still missing.

A public name is one ``dir()`` lists without a leading underscore. Some are not torch's
API to reproduce, and are left out of the count by the written rule below (``RULES``):
names torch re-exports from elsewhere (``os``, ``math``, ``typing.Callable``),
documentation strings, and names of the parts of torch a CPU-only NumPy library does not
reproduce: CUDA and other accelerator back ends, sparse layouts, quantization, the
TorchScript/compiler/export machinery, the distributed runtime's internals, lazy
modules, typed storages, and dtypes NumPy cannot hold. A name hookgrad has is counted
whatever the rule says. Every excluded name is printed with its reason by
``--excluded``.

usage: python tools/api_coverage.py [--missing] [--excluded] [NAMESPACE ...]
(needs torch, the test-only oracle)
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
import types
from dataclasses import dataclass

# (torch's namespace, hookgrad's), in the order reported.
NAMESPACES = {
    "torch": "hookgrad",
    "torch.Tensor": "hookgrad.Tensor",
    "torch.nn": "hookgrad.nn",
    "torch.nn.functional": "hookgrad.nn.functional",
    "torch.nn.init": "hookgrad.nn.init",
    "torch.linalg": "hookgrad.linalg",
    "torch.special": "hookgrad.special",
    "torch.fft": "hookgrad.fft",
    "torch.distributions": "hookgrad.distributions",
    "torch.optim": "hookgrad.optim",
    "torch.optim.lr_scheduler": "hookgrad.optim.lr_scheduler",
    "torch.utils.data": "hookgrad.utils.data",
    "torch.autograd": "hookgrad.autograd",
    "torch.futures": "hookgrad.futures",
    "torch.testing": "hookgrad.testing",
}

# The written rule: a public name matching one of these patterns (a full match) is out
# of scope, for the reason given.
RULES: list[tuple[str, str]] = [
    (
        r"(.*_)?(cuda|cudnn|miopen|mkldnn|fbgemm|xpu|mtia|ipu|xla|vulkan|hpu|mps|gpu|nccl)"
        r"(_.*)?|ThroughputBenchmark",
        "an accelerator or vendor back end",
    ),
    (
        r".*(sparse|_csr|_csc|_bsr|_bsc|_coo|crow_|ccol_|row_indices|col_indices).*"
        r"|smm|hsmm|dsmm|spmm|hspmm|sspaddmm|saddmm|indices_copy|values_copy|coalesce"
        r"|is_coalesced|to_dense|dense_dim|sparse_dim|sparse_mask|indices|values"
        r"|crow_indices|ccol_indices",
        "a sparse layout",
    ),
    (
        r"(.*_)?(quantize|quantized|dequantize|quant|qint\d*|quint\d*(x\d)?|qscheme|int_repr"
        r"|qparams|optimized|quantization)(_.*)?|q_.*|per_tensor.*|per_channel.*|fake_quantize.*"
        r"|Q.*Storage"
        r"|ao|qat|intrinsic|quantizable",
        "quantization",
    ),
    (
        r"jit|fx|export|compiler|_dynamo|onnx|package|library|classes|ops|cpp|hub|monitor"
        r"|profiler|utils|backends_.*|Script.*|.*Type|Graph|Node|Value|Block|Use|Code"
        r"|FileCheck|CompilationUnit|ConcreteModuleType.*|parse_.*|import_ir_module.*"
        r"|merge_type_from_type_comment|unify_type_list|Argument|ArgumentSpec"
        r"|CompleteArgumentSpec|FunctionSchema|AliasDb|CallStack|Capsule|IODescriptor"
        r"|ErrorReport|ExecutionPlan|Gradient|GraphExecutorState|LiteScriptModule"
        r"|LoggerBase|LockingLogger|NoopLogger|StaticModule|ThroughputBenchmark"
        r"|BenchmarkConfig|BenchmarkExecutionStats|TracingState|DeepCopyMemoTable"
        r"|PyTorchFileReader|PyTorchFileWriter|ScriptModuleSerializer"
        r"|SerializationStorageContext|DeserializationStorageContext|InferredType"
        r"|OperatorInfo|PRIVATE_OPS|Tag|DispatchKey|DispatchKeySet|ExcludeDispatchKeyGuard"
        r"|DisableTorchFunction|DisableTorchFunctionSubclass|sym_.*|Sym.*|while_loop|cond"
        r"|fork|wait|AggregationType|AVG|SUM|Stat|set_flush_denormal|compiled_with_cxx11_abi"
        r"|get_file_path|prepare_multiprocessing_environment|init_num_threads"
        r"|profiler_allow_cudagraph_cupti_lazy_reinit_cuda12|thread_safe_generator"
        r"|segment_reduce|hash_tensor|jagged|nested|masked|signal|func|cpu",
        "the TorchScript, compiler, export or runtime machinery",
    ),
    (
        r"distributed|is_distributed|batch_norm_.*(stats|elemt|reduce).*|rpc|RRef.*",
        "the distributed runtime (issue 12 builds torch.distributed)",
    ),
    (
        r"Lazy.*|Uninitialized.*|LazyModuleMixin",
        "a lazy-initialisation module",
    ),
    (
        r".*(float8|float4|bits1x8|bits2x4|bits4x2|bits8|bits16|complex32|chalf|uint[1-7]"
        r"|int[1-7]|uint16|uint32|uint64|bfloat16|BFloat16).*|bit",
        "a dtype NumPy cannot hold",
    ),
    (
        r".*Storage|is_storage|from_file|record_stream",
        "typed storages and files mapped to memory",
    ),
    (
        r".*(autocast|_notes|common_args|factory_common_args|multi_dim_common).*",
        "device-specific autocast internals or documentation text",
    ),
    (
        r"to_padded_tensor|index",
        "nested tensors and functorch's first-class dimensions (``Tensor.index``)",
    ),
    (
        r"TYPE_CHECKING|USE_GLOBAL_DEPS|USE_RTLD_GLOBAL_WITH_LIBTORCH",
        "a flag of torch's build and loader",
    ),
    (
        r"BufferDict|ModuleDict|ParameterDict",
        "TorchScript's views of a ScriptModule (at torch's top level; nn's are counted)",
    ),
]
_COMPILED = [(re.compile(pattern), reason) for pattern, reason in RULES]
# A name hookgrad has counts, whatever the rule says of it (``torch.cpu``, ``Tensor.cuda``).


@dataclass
class Coverage:
    namespace: str
    present: list[str]
    missing: list[str]
    excluded: dict[str, str]

    @property
    def share(self) -> float:
        counted = len(self.present) + len(self.missing)
        return len(self.present) / counted if counted else 1.0


def _load(path: str) -> object | None:
    module, _, attribute = path.rpartition(".")
    try:
        return importlib.import_module(path)
    except ImportError:
        pass
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError):
        return None


def _reexported(owner: object, name: str) -> bool:
    """Whether ``owner.name`` is something torch only passes on from another package."""
    try:
        value = inspect.getattr_static(owner, name)
    except AttributeError:
        return False
    if isinstance(value, str):
        return True  # documentation text
    if isinstance(value, types.ModuleType):
        # another package's module, or ``torch`` itself bound inside a submodule
        return not value.__name__.startswith("torch") or value.__name__ == "torch"
    module = getattr(value, "__module__", None)
    if isinstance(owner, type):
        return False
    return isinstance(module, str) and not module.startswith("torch")


def excluded_reason(owner: object, name: str) -> str | None:
    """Why ``name`` of torch's ``owner`` is out of scope, or None if it counts."""
    if _reexported(owner, name):
        return "re-exported from another package, or documentation text"
    for pattern, reason in _COMPILED:
        if pattern.fullmatch(name):
            return reason
    return None


def coverage(torch_path: str, hookgrad_path: str) -> Coverage:
    theirs = _load(torch_path)
    ours = _load(hookgrad_path)
    present, missing, excluded = [], [], {}
    for name in sorted(n for n in dir(theirs) if not n.startswith("_")):
        reason = excluded_reason(theirs, name)
        if ours is not None and hasattr(ours, name) and not _reexported(theirs, name):
            present.append(name)
        elif reason is not None:
            excluded[name] = reason
        else:
            missing.append(name)
    return Coverage(torch_path, present, missing, excluded)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("namespaces", nargs="*", help="torch namespaces (default: all)")
    parser.add_argument("--missing", action="store_true", help="list the missing names")
    parser.add_argument("--excluded", action="store_true", help="list excluded names")
    args = parser.parse_args(argv)
    for torch_path in args.namespaces or NAMESPACES:
        report = coverage(torch_path, NAMESPACES[torch_path])
        counted = len(report.present) + len(report.missing)
        print(
            f"{torch_path:28} {report.share:6.1%}  ({len(report.present)} of {counted};"
            f" {len(report.excluded)} out of scope)"
        )
        if args.missing and report.missing:
            print("    missing: " + " ".join(report.missing))
        if args.excluded:
            for name, reason in report.excluded.items():
                print(f"    excluded {name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
