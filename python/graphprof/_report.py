"""Report, Diff and ABResult: thin wrappers over the C++ objects.

Everything is computed by the C++ engine (views, statistics, renderings);
these classes only choose defaults, convert to pandas and write files.
"""

import html as _html
import os

from . import _graphprof
from ._errors import InvalidArgumentError

VIEWS = ("node", "kind", "module", "shape")

# to_pandas(): per view, the index and the descriptive columns that mean
# something for it, then the numbers (the CLI CSV's names and meanings).
_DESCRIPTIVE = {
    "node": ("id", ["name", "kind", "module", "shapes", "source", "depth"]),
    "kind": ("name", ["nodes"]),
    "module": ("name", ["depth", "nodes"]),
    "shape": ("name", ["kind", "shapes", "nodes"]),
}
_CSV_DESCRIPTIVE = {"id", "name", "kind", "module", "shapes", "source", "depth", "nodes"}
_DEFAULT_TABLE_ROWS = 20  # profile_graph's --top default for tables


def _path(path, what):
    """A file path argument as the bytes the OS takes (os.fsencode: any path
    the file system has, UTF-8 or not): str, bytes or os.PathLike; an int (a
    file descriptor to open()) or anything else is a TypeError, a NUL byte
    (which would cut the path short) an InvalidArgumentError."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError("%s: expected a path (str or os.PathLike), got %s" % (what, type(path).__name__))
    path = os.fsencode(os.fspath(path))
    if b"\0" in path:
        raise InvalidArgumentError("%s: the path contains a NUL byte" % what)
    return path


def _write_atomically(path, data, what="save"):
    """Writes `data` (str or bytes) to `path` whole, through the CLI's writer
    (common/output_file.h): a temporary file next to it renamed over it, the
    target's permissions (or the umask's), symlinks written through, devices
    and pipes written in place; a failure raises FileError (an OSError)
    naming `path` and leaves nothing behind."""
    path = _path(path, what)
    if isinstance(data, str):
        data = data.encode("utf-8")
    _graphprof.write_file(path, bytes(data))


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - python3-pandas is installed by ./bazelw
        raise ImportError("to_pandas() needs pandas (Debian: apt-get install python3-pandas)") from e
    return pandas


def _check_view(view):
    if view not in VIEWS:
        raise ValueError("unknown view %r (use node, kind, module or shape)" % (view,))


def _iframe(page):
    """A self-contained HTML page as a notebook cell output: an iframe, so the
    page's scripts and styles stay apart from the notebook's."""
    return ('<iframe srcdoc="%s" style="width:100%%;height:720px;border:1px solid #ddd" '
            'sandbox="allow-scripts"></iframe>' % _html.escape(page, quote=True))


class Report:
    """What one profiling session measured: every node's time in every timed
    run, the memory view, the trace events, verification and model sizes.

    The same data as profile_graph's JSON report; every rendering of the CLI
    is a method here. Numbers are per run, in microseconds unless named
    otherwise (`*_ns`, `*_bytes`).
    """

    def __init__(self, _report, memory=False, method="forward"):
        self._r = _report
        self._memory = memory
        self._method = method
        self._nodes = None

    # -- facts -------------------------------------------------------------
    @property
    def model(self):
        return self._r.model

    @property
    def runs(self):
        return self._r.runs

    @property
    def warmup(self):
        return self._r.warmup

    @property
    def total_us(self):
        """Mean run time in microseconds."""
        return self._r.total_us

    @property
    def run_ns(self):
        """Host run time of every timed run (list of int, nanoseconds)."""
        return self._r.run_ns

    @property
    def coverage(self):
        """Mean over runs of (time inside top-level nodes) / (run time)."""
        return self._r.coverage

    @property
    def timer_overhead_ns(self):
        """Measured timer cost per node execution, added to its parent (ns)."""
        return self._r.timer_overhead_ns

    @property
    def timer_inner_ns(self):
        """The part of timer_overhead_ns inside the node's own interval (ns)."""
        return self._r.timer_inner_ns

    @property
    def timer_block_ns(self):
        """Cost of the clock read made on entering a block (ns; 0: none)."""
        return self._r.timer_block_ns

    @property
    def compensated(self):
        """True when the timer's cost was taken off the times."""
        return self._r.compensated

    @property
    def metrics(self):
        return self._r.metrics

    @property
    def parameters(self):
        return self._r.parameters

    @property
    def trainable_parameters(self):
        return self._r.trainable_parameters

    @property
    def model_bytes(self):
        return self._r.model_bytes

    @property
    def input_bytes(self):
        return self._r.input_bytes

    @property
    def notes(self):
        return self._r.notes

    @property
    def verification(self):
        """None when not checked, else a dict (identical, within_tolerance,
        passed, max_abs_error, max_rel_error, rtol, atol, detail, reference)."""
        return self._r.verification()

    @property
    def gradient_verification(self):
        """With backward=True: the parameter gradients compared with native
        forward + backward (a dict like verification), else None."""
        return self._r.gradient_verification()

    @property
    def loss(self):
        """What backward differentiated ("" without backward=True)."""
        return self._r.loss

    @property
    def verified(self):
        """True/False: the output (and the gradients, with backward=True)
        matched the native run; None: not checked."""
        checks = [c for c in (self._r.verification(), self._r.gradient_verification()) if c is not None]
        return None if not checks else all(c["passed"] for c in checks)

    @property
    def memory(self):
        """The memory summary of the inspection run (peak_bytes, peak_node,
        allocated_bytes, freed_bytes, allocations, timeline), or None."""
        return self._r.memory()

    @property
    def nodes(self):
        """Every node as a plain dict, in id order: id, parent, depth, name,
        kind, schema, module, source, archive_source, fused_modules (the
        modules of the nodes a compiled kernel fuses; [] otherwise), input_shapes,
        output_shapes, executed, memory (dict or None), top_kernels, and the
        raw per-run samples calls, total_ns, self_ns (and `metrics` for
        device/backward series when present), and the work one run of it did:
        flops, bytes, work_counted."""
        if self._nodes is None:
            self._nodes = self._r.nodes()
        return self._nodes

    # -- renderings ---------------------------------------------------------
    def summary(self):
        """The summary header of profile_graph's table report."""
        return self._r.summary()

    def table(self, group_by="node", top=_DEFAULT_TABLE_ROWS, sort=None, memory=None):
        """One aligned table as profile_graph prints it: group_by is node,
        kind, module or shape; top=0 shows all rows (the sums row covers all);
        sort is a column (mean, self, std, p90, calls, id, name, order, with
        memory alloc, peak, output, ...); memory adds the memory columns (default: profile's memory)."""
        memory = self._memory if memory is None else memory
        return self._r.text(group_by, top, sort or "", bool(memory), False)

    def __str__(self):
        """profile_graph's default output: summary, top nodes, by kind."""
        return self._r.text("node", _DEFAULT_TABLE_ROWS, "", bool(self._memory), True)

    def __repr__(self):
        v = self.verified
        verified = "not verified" if v is None else ("verified" if v else "OUTPUT DIFFERS")
        return "<graphprof.Report %s: %d runs, mean %.1f us, %d nodes, %s>" % (
            self.model, self.runs, self.total_us, self._r.num_nodes, verified)

    def to_pandas(self, view="node", sort=None, top=0, modules=None):
        """The view as a pandas.DataFrame, rows in the tables' order (sort:
        mean by default, module tree order for modules; top=0: all rows).

        Index: `id` for nodes, `name` (the kind, module path or
        "kind (shapes)") for the grouped views. Columns: what describes the
        row (node: name, kind, module, shapes, source, depth; kind: nodes;
        module: depth, nodes; shape: kind, shapes, nodes), then the numbers
        with the CLI CSV's names, meanings and order, at full precision: count
        (executions per run), mean_us, percent, self_us, self_percent, std_us,
        min_us, median_us, p90_us, max_us (of the per-run time), total_us
        (sum over runs), device/backward metrics, work, alloc_bytes,
        peak_bytes, output_bytes, and per-report spread when the report has
        them.
        pandas is imported here, not when graphprof is."""
        _check_view(view)
        pandas = _pandas()
        columns = self._r.view_columns(view, sort or "", top, list(modules or []))
        index, descriptive = _DESCRIPTIVE[view]
        numbers = [c for c in columns if c not in _CSV_DESCRIPTIVE]
        frame = pandas.DataFrame({c: columns[c] for c in descriptive + numbers},
                                 index=pandas.Index(columns[index], name=index))
        return frame

    def to_csv(self, view="node", sort=None, top=0):
        """profile_graph --format=csv --group_by=VIEW."""
        _check_view(view)
        return self._r.csv(view, sort or "", top)

    def to_json(self):
        """profile_graph --format=json (schema 2): raw per-run samples plus
        derived statistics; Report.from_json reads it back."""
        return self._r.to_json().decode("utf-8")

    @classmethod
    def from_json(cls, text):
        """A Report from to_json()'s text (or profile_graph's JSON output)."""
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as e:
                raise InvalidArgumentError("report is not UTF-8 text (byte %d)" % e.start) from None
        elif not isinstance(text, str):
            raise TypeError("from_json: expected str or bytes, got %s" % type(text).__name__)
        return cls(_graphprof._Report.from_json(text))

    def save(self, path):
        """Writes to_json() to `path`."""
        _write_atomically(path, self._r.to_json())

    @classmethod
    def load(cls, path):
        """Reads a JSON report written by save() or profile_graph. Only a
        regular file is read (as the CLI's --compare does): a directory,
        device or pipe raises FileError, as an unreadable file does."""
        return cls.from_json(_graphprof.read_file(_path(path, "load")))

    def chrome_trace(self):
        """The timed runs as a Chrome trace (JSON text)."""
        return self._r.chrome_trace().decode("utf-8")

    def save_trace(self, path):
        """profile_graph --trace: chrome://tracing, ui.perfetto.dev."""
        _write_atomically(path, self._r.chrome_trace(), "save_trace")

    def annotated_ir(self):
        """profile_graph --annotate: the IR, each node line with its time."""
        return self._r.annotated_ir()

    def html(self):
        """profile_graph --html: one self-contained HTML page."""
        return self._r.html(None).decode("utf-8")

    def save_html(self, path):
        _write_atomically(path, self._r.html(None), "save_html")

    def _repr_html_(self):
        return _iframe(self.html())


class Diff:
    """Two reports compared node by node (profile_graph --compare)."""

    def __init__(self, _diff, current=None):
        self._d = _diff
        self._current = current

    @property
    def speedup(self):
        """Base mean run time / current mean run time (> 1: faster now)."""
        return self._d.speedup

    @property
    def matched_time_fraction(self):
        return self._d.matched_time_fraction

    @property
    def counts(self):
        """Nodes per match type: same, kind_and_module, replaced, merged, added, removed, unexecuted."""
        return self._d.counts

    @property
    def total(self):
        """The run time compared run by run: verdict, change, change_low,
        change_high, p, q, medians and means (docs/statistics.md)."""
        return self._d.total

    @property
    def verdict_counts(self):
        """Rows per verdict: {"nodes": {"faster": n, ...}, "modules": ..., "kinds": ...}."""
        return self._d.verdict_counts

    @property
    def noise_model(self):
        """"runs", "processes", "paired processes" or "runs between processes": what the statistics treat as the unit."""
        return self._d.noise_model

    @property
    def noise_note(self):
        """One line on what the statistics cannot see for reports of different processes, else ""."""
        return self._d.noise_note

    @property
    def speed(self):
        """Between processes: the machine's speed compared run by run (as total,
        plus reference_nodes: the nodes it was estimated from); every row is
        compared at equal speed. None within one process. docs/statistics.md."""
        return self._d.speed

    @property
    def base_total_us(self):
        return self._d.base_total_us

    @property
    def current_total_us(self):
        return self._d.current_total_us

    def text(self, top=_DEFAULT_TABLE_ROWS):
        return self._d.text(top)

    def __str__(self):
        return self.text()

    def __repr__(self):
        return "<graphprof.Diff %s -> %s: speedup %.3fx, %.1f%% of base time matched>" % (
            self._d.base_model, self._d.current_model, self.speedup, 100 * self.matched_time_fraction)

    def to_pandas(self, view="node"):
        """node: one row per node delta (the CLI's diff CSV columns); kind or
        module: per group (base_us, current_us, delta_us, speedup, ...)."""
        pandas = _pandas()
        if view == "node":
            return pandas.DataFrame(self._d.node_columns())
        if view == "kind":
            return pandas.DataFrame(self._d.kind_columns())
        if view == "module":
            return pandas.DataFrame(self._d.module_columns())
        raise ValueError("unknown view %r (use node, kind or module)" % (view,))

    def to_csv(self):
        return self._d.csv()

    def to_json(self):
        return self._d.to_json()

    def html(self):
        """The current report's HTML page with this diff in it."""
        if self._current is None:
            raise ValueError("html() needs the current report: use graphprof.diff(a, b)")
        return self._current._r.html(self._d).decode("utf-8")

    def _repr_html_(self):
        return _iframe(self.html()) if self._current is not None else None


class ABResult:
    """graphprof.ab(): the module as given (before), after the passes (after),
    and their diff; profile_graph --ab."""

    def __init__(self, before, after, diff, passes):
        self.before = before
        self.after = after
        self.diff = diff
        self.passes = passes

    @property
    def speedup(self):
        return self.diff.speedup

    def __str__(self):
        return "%s\n%s" % (self.after, self.diff.text())

    def __repr__(self):
        return "<graphprof.ABResult %s: speedup %.3fx>" % (self.passes, self.speedup)

    def html(self):
        return self.diff.html()

    def _repr_html_(self):
        return self.diff._repr_html_()
