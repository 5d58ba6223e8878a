"""graphprof: a per-node profiler for TorchScript graphs, from Python.

    import torch, torchvision, graphprof
    m = torch.jit.script(torchvision.models.resnet18().eval())
    r = graphprof.profile(m, torch.randn(1, 3, 224, 224))
    print(r)                       # profile_graph's report
    r.to_pandas("kind")            # a DataFrame per op kind

The C++ engine runs the TorchScript graph node by node with its own
interpreter (the output is checked against module.forward), times every
node over many runs and reports per node, kind, module and input shape.
The module is handed to C++ as it is in memory: nothing is saved to files.

profile()      profile one module, function or nn.Module -> Report
ab()           before/after compiler passes, in one process -> ABResult
diff()         compare two reports -> Diff
merge()        reports of one model from several processes -> Report
Interpreter    torch.fx-style interpreter whose run_node can be overridden
               in Python (a debugging tool: Python per node is slow)
list_passes()  the passes `passes=` and ab() accept
"""

import inspect
import math
import numbers
import os

import torch  # first: registers torch's pybind11 types the extension uses

from . import _cli

# A package built against another torch (another version or C++ ABI) would
# fail in the extension's loader or crash in LibTorch: refuse it in one line.
# (A Bazel build tree's package has no _build_info.py: @python_torch checks
# the torch when it is built.)
_mismatch = _cli.torch_mismatch(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)
if _mismatch is not None:
    raise ImportError(_mismatch)

try:
    from . import _graphprof  # noqa: E402
except ImportError as _error:
    if not _cli.is_source_package():
        raise
    # python/graphprof of a checkout, on sys.path first (Python started in
    # python/): it has no extension and hides an installed graphprof.
    raise ImportError(_cli.SOURCE_PACKAGE % os.path.dirname(os.path.abspath(__file__))) from None
from ._errors import (
    FailedPreconditionError,
    FileError,
    GraphprofError,
    InvalidArgumentError,
    UnsupportedGraphError,
    VerificationError,
)
from ._compiled import compile_aoti
from ._export import save_export
from ._interpreter import Interpreter, Node
from ._report import ABResult, Diff, Report

__all__ = [
    "ABResult",
    "Diff",
    "FailedPreconditionError",
    "FileError",
    "GraphprofError",
    "Interpreter",
    "InvalidArgumentError",
    "Node",
    "Report",
    "UnsupportedGraphError",
    "VerificationError",
    "CheckResult",
    "ab",
    "check",
    "compile_aoti",
    "diff",
    "flops",
    "list_passes",
    "merge",
    "profile",
    "save_export",
]

def _passes_text(passes):
    if passes is None:
        return ""
    if isinstance(passes, str):
        return passes
    try:
        names = list(passes)
    except TypeError:
        raise TypeError("passes: expected None, a string such as \"freeze,optimize_for_inference\" "
                        "or a list of pass names, got %s" % type(passes).__name__) from None
    for name in names:
        if not isinstance(name, str):
            raise TypeError("passes: pass names are strings, got %s" % type(name).__name__)
    return ",".join(names)


_MAX_COUNT = 2**31 - 1  # runs, warm-up runs: the engine counts them in an int


def _int_arg(name, value, low, high=_MAX_COUNT):
    """An int argument: TypeError for other types (bool, str, float
    included), InvalidArgumentError (a ValueError) outside [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s: expected an int, got %s" % (name, type(value).__name__))
    value = int(value)
    if value < low:
        raise InvalidArgumentError("%s must be %s" % (name, "0 or more" if low == 0 else "at least %d" % low))
    if value > high:
        raise InvalidArgumentError("%s must be at most %d, got %d" % (name, high, value))
    return value


def _bool_arg(name, value):
    """True or False (also 0/1 and a numpy bool)."""
    numpy_bool = getattr(value, "shape", None) == () and str(getattr(value, "dtype", "")) == "bool"
    if not (numpy_bool or (isinstance(value, (bool, numbers.Integral)) and value in (0, 1))):
        raise TypeError("%s: expected True or False, got %r" % (name, value))
    return bool(value)


def _tolerance_arg(name, value, default):
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: expected a number, got %s" % (name, type(value).__name__))
    value = float(value)
    if not (value >= 0 and math.isfinite(value)):
        raise InvalidArgumentError("%s must be a finite number, 0 or more, got %r" % (name, value))
    return value


def _str_arg(name, value, optional=False):
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise TypeError("%s: expected a string%s, got %s" % (name, " or None" if optional else "",
                                                              type(value).__name__))
    return value


def _checked(runs, warmup, rtol, atol, method, name, **flags):
    """The arguments profile() and ab() share, checked: (runs, warmup, rtol,
    atol, method, name, {flag: bool}); rtol and atol default to 1e-4 and
    1e-5 (profile_graph's)."""
    return (_int_arg("runs", runs, 1), _int_arg("warmup", warmup, 0), _tolerance_arg("rtol", rtol, 1e-4),
            _tolerance_arg("atol", atol, 1e-5), _str_arg("method", method), _str_arg("name", name, optional=True),
            {flag: _bool_arg(flag, value) for flag, value in flags.items()})


def _check_inputs(inputs):
    """Tensors that hold no data (the meta device) cannot be run: one line,
    not LibTorch's 40-line dispatcher message."""
    def visit(value, where, depth):
        if depth > 100:
            return
        if isinstance(value, torch.Tensor):
            if value.device.type == "meta":
                raise InvalidArgumentError("%s is a tensor on the meta device (shapes only, no data): graphprof "
                                           "runs the graph, so inputs must hold data (e.g. torch.empty_like(t, "
                                           "device=\"cpu\"))" % where)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                visit(v, "%s[%d]" % (where, i), depth + 1)
        elif isinstance(value, dict):
            for k, v in value.items():
                visit(v, "%s[%r]" % (where, k), depth + 1)
    for i, value in enumerate(inputs):
        visit(value, "input %d" % (i + 1), 0)


def _target(module, inputs, trace, method):
    """What the C++ side takes: a ScriptModule's C++ module (`_c`) or a
    ScriptFunction. nn.Modules and plain functions are scripted, or traced
    on `inputs` with trace=True."""
    if isinstance(module, torch.jit.ScriptModule):
        if trace:
            raise ValueError("trace=True applies to nn.Modules and functions; this is already a ScriptModule")
        return module._c
    if isinstance(module, torch.jit.ScriptFunction):
        if trace:
            raise ValueError("trace=True applies to nn.Modules and functions; this is already a ScriptFunction")
        return module
    if not trace and not isinstance(module, torch.nn.Module) and callable(module) and not (
            inspect.isfunction(module) or inspect.ismethod(module)):
        # torch.relu, a functools.partial, a class instance with __call__:
        # TorchScript can only script Python functions and nn.Modules.
        raise TypeError("cannot script %s (%s): pass a torch.jit.ScriptModule, a torch.jit.ScriptFunction, an "
                        "nn.Module or a Python function, e.g. def f(x): return torch.relu(x)"
                        % (getattr(module, "__name__", repr(module)), type(module).__name__))
    if isinstance(module, torch.nn.Module) or callable(module):
        if trace:
            if method != "forward":
                raise ValueError("trace=True traces forward; method=%r needs a scripted module" % (method,))
            if not inputs:
                raise ValueError("trace=True needs example inputs")
            traced = torch.jit.trace(module, tuple(inputs))
        else:
            traced = torch.jit.script(module)
        return traced._c if isinstance(traced, torch.jit.ScriptModule) else traced
    raise TypeError("expected a torch.jit.ScriptModule, a torch.jit.ScriptFunction, an nn.Module or a function, "
                    "got %s" % type(module).__name__)


def profile(module, *inputs, runs=10, warmup=3, memory=False, passes=None, backward=False, loss_output=None,
            verify=True, trace=False, method="forward", rtol=None, atol=None, name=None, clock=None,
            compensate=True, allow_side_effects=False):
    """Profiles `module(*inputs)` node by node: the engine and the numbers of
    profile_graph.

    module   a torch.jit.ScriptModule (scripted, traced, frozen, loaded), a
             torch.jit.ScriptFunction, or an nn.Module / function, which is
             scripted (or traced on `inputs` with trace=True); a
             torch.export program; or a file's path (str or os.PathLike):
             anything profile_graph --model opens (.pt, TorchScript source,
             .pt2), profiled and verified as profile_graph profiles it
             (a .pt2 given no inputs takes the archive's own)
    inputs   the positional inputs (tensors, ints, lists, tuples, dicts,
             None...), converted as TorchScript converts call arguments;
             never modified (each run gets fresh copies)
    runs, warmup   timed runs and untimed warm-up runs
    memory   show the per-node memory columns in tables (the memory view is
             always measured, as by the CLI)
    passes   LibTorch passes applied to a copy first, "freeze,optimize_for_inference"
             or a list of names (list_passes())
    verify   compare the output with native execution of the unmodified
             module: identical; after passes, against a float64 run of
             the module (its own rounding error sets the bar: profile_graph
             --verify), or within rtol/atol (numpy.isclose) when either is
             given or no float64 run can be made; a difference raises
             VerificationError (its .report has the profile)
    method   the module method to profile
    name     the report's model name (default "<Class>.<method>")
    backward training steps (profile_graph --backward): each run is forward
             with gradients, then backward of the sum of all floating
             outputs (or of output `loss_output`, a one-element tensor);
             tables gain backward_us / backward_fns columns, the memory
             summary what backward kept; with verify, parameter gradients
             are compared with native forward + backward too. Gradients are
             reset before each run and keep the last run's afterwards.
    clock    "tsc" or "steady" (default: tsc where the CPU's is invariant)
    compensate  take the timer's measured cost off the times (default)
    allow_side_effects  run operators that act outside the process
             (torch.save writes a file; collectives): refused by default,
             before anything runs, as profiling runs the model many times

    Forward-only profiles run without autograd (torch.no_grad), on the
    calling thread, with the current torch.get_num_threads(). Returns a
    Report; engine failures raise GraphprofError subclasses with
    profile_graph's one-line message.
    """
    tolerance_given = rtol is not None or atol is not None
    runs, warmup, rtol, atol, method, name, flags = _checked(
        runs, warmup, rtol, atol, method, name, memory=memory, verify=verify, backward=backward, trace=trace,
        compensate=compensate, allow_side_effects=allow_side_effects)
    memory, verify, backward, trace, compensate, allow_side_effects = (
        flags[f] for f in ("memory", "verify", "backward", "trace", "compensate", "allow_side_effects"))
    clock = _clock_arg(clock)
    loss_output = -1 if loss_output is None else _int_arg("loss_output", loss_output, 0)
    passes = _passes_text(passes)
    _check_inputs(inputs)
    common = dict(runs=runs, warmup=warmup, verify=verify, rtol=rtol, atol=atol, name=name, clock=clock,
                  compensate=compensate, tolerance_given=tolerance_given, allow_side_effects=allow_side_effects)
    if _is_exported_program(module):
        if trace:
            raise InvalidArgumentError("trace=True applies to nn.Modules and functions, not to torch.export programs")
        # What a program can do is checked where every program's source is
        # (sources/model_source.h's CheckAbilities), before it is saved.
        _graphprof.check_program_request(passes, method, runs, warmup, rtol, atol, backward, loss_output)
        return _profile_export(module, inputs, memory, common)
    if isinstance(module, (str, os.PathLike)):
        if trace:
            raise InvalidArgumentError("trace=True applies to nn.Modules and functions, not to a file")
        r = _graphprof.profile_file(os.fspath(module), tuple(inputs), passes=passes, method=method,
                                    backward=backward, loss_output=loss_output, **common)
        return _checked_report(r, memory, method)
    target = _target(module, inputs, trace, method)
    r = _graphprof.profile(target, tuple(inputs), passes=passes, method=method, backward=backward,
                           loss_output=loss_output, **common)
    return _checked_report(r, memory, method)


def _is_exported_program(value):
    return type(value).__name__ == "ExportedProgram" and hasattr(value, "graph_signature")


def _clock_arg(clock):
    clock = _str_arg("clock", clock, optional=True)
    if clock not in ("", "tsc", "steady"):
        raise InvalidArgumentError("clock must be \"tsc\" or \"steady\", got %r" % (clock,))
    return clock


def _check_program(ep, inputs, allow_side_effects):
    """What profile(ep) checks before ep.module() runs (it computes the
    reference): operators acting outside the process (the engine's list),
    and the inputs against the program's own placeholders, so that a wrong
    input is one line, not PyTorch's multi-line error. Returns the inputs'
    leaves, the program's user inputs."""
    for node in ep.graph.nodes:
        schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
        what = _graphprof.side_effect_of(schema.name) if schema is not None else ""
        if what and not allow_side_effects:
            trace = (node.meta.get("stack_trace") or "").strip().splitlines()
            where = " at " + trace[-2].strip() if len(trace) >= 2 else ""
            # FailedPreconditionError, as the engine refuses such a node of a
            # TorchScript graph (GraphPlan::Build).
            raise FailedPreconditionError("profile(ep): node %s (%s)%s %s, which profiling would repeat on every "
                                          "run: refused (allow_side_effects=True runs it)"
                                          % (node.name, schema.name, where, what))
    from torch.utils import _pytree
    user = [n for n in ep.graph.nodes if n.op == "placeholder" and n.name in set(ep.graph_signature.user_inputs)]
    flat = _pytree.tree_flatten(tuple(inputs))[0]
    if len(flat) != len(user):
        raise InvalidArgumentError("profile(ep): the program takes %d input%s but %d %s given"
                                   % (len(user), "" if len(user) == 1 else "s", len(flat),
                                      "was" if len(flat) == 1 else "were"))
    for i, (node, value) in enumerate(zip(user, flat)):
        want = node.meta.get("val")
        if not isinstance(want, torch.Tensor):
            continue
        if not isinstance(value, torch.Tensor):
            raise InvalidArgumentError("profile(ep): input %d (%s) must be a tensor, got %s"
                                       % (i, node.name, type(value).__name__))
        if value.dtype != want.dtype:
            raise InvalidArgumentError("profile(ep): input %d (%s) must be %s but is %s"
                                       % (i, node.name, want.dtype, value.dtype))
        if value.dim() != want.dim():
            raise InvalidArgumentError("profile(ep): input %d (%s) must have %d dimensions but has %d"
                                       % (i, node.name, want.dim(), value.dim()))
        for k, size in enumerate(want.shape):
            if isinstance(size, int) and value.shape[k] != size:
                raise InvalidArgumentError("profile(ep): input %d (%s) must have size %d in dimension %d "
                                           "(exported static) but has %d" % (i, node.name, size, k, value.shape[k]))
    return flat


def _profile_export(ep, inputs, memory, common):
    """profile(ep, *inputs) of a torch.export program: saved with its
    outputs for `inputs` (save_export), then profiled as profile_graph
    --model=PROGRAM.pt2 profiles it, verified against ep.module(). The
    caller's inputs are never modified (save_export runs ep.module() on a
    copy)."""
    import tempfile
    common = dict(common, name=common["name"] or "ExportedProgram")
    if not inputs:
        inputs, kwargs = ep.example_inputs
        if kwargs:
            raise InvalidArgumentError("profile(ep): the program's example inputs have keywords; pass inputs by position")
    # The program's user inputs are the leaves of the arguments (a dict
    # argument gives its values, in order), as torch.export flattens them.
    flat = _check_program(ep, inputs, common["allow_side_effects"])
    with tempfile.TemporaryDirectory() as d:
        path = d + "/program.pt2"
        save_export(ep, path, *inputs)
        r = _graphprof.profile_file(path, tuple(flat), **common)
    return _checked_report(r, memory, "forward")


def _checked_report(r, memory, method):
    """The Report of `r`; VerificationError (with it) when its output differs."""
    report = Report(r, memory=memory, method=method)
    failure = r.verification_failure(method)
    if failure is not None:
        raise VerificationError(failure, report=report)
    return report


def _fraction(name, value, low_open, high_open=True):
    """A float argument in (0, 1) or [0, 1): TypeError for other types, ValueError out of range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: expected a number, got %s" % (name, type(value).__name__))
    value = float(value)
    if not (value > 0 if low_open else value >= 0) or not value < 1:
        raise ValueError("%s must be %s 0 and below 1, got %r" % (name, "above" if low_open else "at least", value))
    return value


def ab(module, passes, *inputs, runs=10, warmup=3, memory=False, verify=True, trace=False, method="forward",
       rtol=None, atol=None, diff_all=False, name=None, min_effect=0.02, alpha=0.05, copies=3,
       allow_side_effects=False):
    """Profiles `module` as given (A) and after `passes` (B) on the same
    inputs in one process, and diffs them: profile_graph --ab.

    Each side runs on `copies` separately prepared copies of the module (own
    weights and plan; --ab_copies), its runs spread over them, and the diff
    takes the copies as its unit of variation; copies=1: one a side.

    With verify, both outputs are compared with native execution of the
    unmodified module (A identical, B as profile() checks after passes:
    against a float64 run, or within rtol/atol when given); a failure raises
    VerificationError whose .result holds the ABResult.
    """
    passes = _passes_text(passes)
    tolerance_given = rtol is not None or atol is not None
    runs, warmup, rtol, atol, method, name, flags = _checked(
        runs, warmup, rtol, atol, method, name, memory=memory, verify=verify, trace=trace, diff_all=diff_all,
        allow_side_effects=allow_side_effects)
    memory, verify, trace, diff_all, allow_side_effects = (
        flags[f] for f in ("memory", "verify", "trace", "diff_all", "allow_side_effects"))
    _check_inputs(inputs)
    if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= 16:
        raise ValueError(f"copies must be an int from 1 to 16, got {copies!r}")
    target = _target(module, inputs, trace, method)
    if not isinstance(target, torch._C.ScriptModule):
        raise TypeError("ab() needs a module: passes apply to modules, not to script functions")
    before, after, d = _graphprof.ab(target, passes, tuple(inputs), runs=runs, warmup=warmup,
                                     verify=verify, rtol=rtol, atol=atol, method=method,
                                     diff_all=diff_all, name=name,
                                     min_effect=_fraction("min_effect", min_effect, low_open=False),
                                     alpha=_fraction("alpha", alpha, low_open=True), copies=copies,
                                     tolerance_given=tolerance_given, allow_side_effects=allow_side_effects)
    before = Report(before, memory=memory, method=method)
    after = Report(after, memory=memory, method=method)
    result = ABResult(before, after, Diff(d, current=after), passes)
    for which, report in (("A: ", before), ("B: ", after)):
        failure = report._r.verification_failure(method)
        if failure is not None:
            raise VerificationError(which + failure, report=report, result=result)
    return result


def diff(a, b, diff_all=False, min_effect=0.02, alpha=0.05):
    """Compares report `a` (base) with `b` (current): profile_graph --compare.

    Every row gets a verdict (faster, slower, same, inconclusive) with the
    change's 95% interval, p and q (docs/statistics.md); min_effect and
    alpha as the CLI's --min_effect and --alpha.
    """
    for r in (a, b):
        if not isinstance(r, Report):
            raise TypeError("diff() compares graphprof.Report objects, got %s" % type(r).__name__)
    return Diff(_graphprof.diff(a._r, b._r, bool(diff_all), _fraction("min_effect", min_effect, low_open=False),
                                _fraction("alpha", alpha, low_open=True)), current=b)


class CheckResult:
    """What check() found: `status` ("passed", "failed" or "inconclusive"),
    `passed`, the `offenders` (dicts: what, name, base_us, current_us,
    change, change_low, change_high, q, verdict, ...), how many rows fail_on
    selected and how many of them could be tested (`rows_selected`,
    `rows_tested`), the differences allowed on purpose (`accepted`) and the
    `diff`. "inconclusive": no selected row could be tested, so the gate
    cannot tell (profile_graph check exits 5); it is not a pass."""

    def __init__(self, status, diff, offenders, fail_on, rows_selected, rows_tested, accepted):
        self.status = status
        self.diff = diff
        self.offenders = offenders
        self.fail_on = fail_on
        self.rows_selected = rows_selected
        self.rows_tested = rows_tested
        self.accepted = accepted

    @property
    def passed(self):
        return self.status == "passed"

    @property
    def inconclusive(self):
        return self.status == "inconclusive"

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return "<graphprof.CheckResult %s: %d slower row(s), %d of %d selected rows tested, fail_on=%s>" % (
            self.status.upper(), len(self.offenders), self.rows_tested, self.rows_selected, ",".join(self.fail_on))


def check(base, current, fail_on="total", min_effect=0.02, alpha=0.05, allow_graph_change=False,
          allow_input_change=False):
    """The regression gate (profile_graph check): diffs `current` against
    `base` and returns a CheckResult whose offenders are the rows selected by
    `fail_on` ("total", "module", "node", comma-separated or a list) whose
    verdict is slower. Reports that cannot be compared raise
    FailedPreconditionError, as profile_graph check exits 1: training steps
    against forward runs, another graph or other passes (unless
    allow_graph_change), other inputs (unless allow_input_change), too few
    runs on a side for the test to reach `alpha`."""
    for r in (base, current):
        if not isinstance(r, Report):
            raise TypeError("check() compares graphprof.Report objects, got %s" % type(r).__name__)
    if isinstance(fail_on, str):
        wanted = [w for w in fail_on.split(",") if w]
    else:
        try:
            wanted = list(fail_on)
        except TypeError:
            raise TypeError("fail_on: expected a string such as \"total,module\" or a list of them")
    for w in wanted:
        if not isinstance(w, str):
            raise TypeError("fail_on: expected strings, got %s" % type(w).__name__)
        if w not in ("total", "module", "node"):
            raise ValueError("fail_on: unknown %r (use total, module, node)" % (w,))
    if not wanted:
        raise ValueError("fail_on: name at least one of total, module, node")
    status, offenders, selected, tested, accepted, d = _graphprof.gate(
        base._r, current._r, wanted, _bool_arg("allow_graph_change", allow_graph_change),
        _bool_arg("allow_input_change", allow_input_change), _fraction("min_effect", min_effect, low_open=False),
        _fraction("alpha", alpha, low_open=True))
    return CheckResult(status, Diff(d, current=current), offenders, wanted, selected, tested, list(accepted))


def flops(module, *inputs, trace=False, method="forward"):
    """The work of one execution of `module` on `inputs`, counted as
    profile_graph counts it (docs/roofline.md): a dict with "flops" and
    "bytes" (the whole run), "by_kind" ({kind: flops}) and "uncounted" (the
    executed kinds whose work is not counted, with their node counts). It
    runs the graph once for shapes and once timed, without warm-up or
    verification."""
    r = profile(module, *inputs, runs=1, warmup=0, verify=False, trace=trace, method=method)
    total_flops = total_bytes = 0.0
    by_kind = {}
    uncounted = {}
    for n in r.nodes:
        if not n["executed"]:
            continue
        total_flops += n.get("flops", 0.0)
        total_bytes += n.get("bytes", 0.0)
        by_kind[n["kind"]] = by_kind.get(n["kind"], 0.0) + n.get("flops", 0.0)
        if not n.get("work_counted", True):
            uncounted[n["kind"]] = uncounted.get(n["kind"], 0) + 1
    return {"flops": total_flops, "bytes": total_bytes, "by_kind": by_kind,
            "uncounted": sorted(uncounted.items())}


def merge(reports, names=None):
    """Merges reports of the same model (from several processes, ranks or
    inputs) into one: runs concatenated, per-report spread in every view.
    `names` label the reports (default report1, report2, ...)."""
    if isinstance(reports, (Report, str, bytes)):
        raise TypeError("merge() takes a list of graphprof.Report objects, got one %s" % type(reports).__name__)
    reports = list(reports)
    if not reports:
        raise InvalidArgumentError("merge(): no reports to merge")
    for r in reports:
        if not isinstance(r, Report):
            raise TypeError("merge() takes graphprof.Report objects, got %s" % type(r).__name__)
    names = ["report%d" % (i + 1) for i in range(len(reports))] if names is None else [str(n) for n in names]
    if len(names) != len(reports):
        raise ValueError("merge(): %d names for %d reports" % (len(names), len(reports)))
    memory = any(r._memory for r in reports)
    return Report(_graphprof.merge([r._r for r in reports], names), memory=memory)


def list_passes():
    """[(name, description)] of the passes `passes=` and ab() accept."""
    return _graphprof.list_passes()
