"""Tests of graphprof's Python package: profile(), reports, control flow,
the Interpreter, training steps (run by //python:graphprof_test with Debian's
/usr/bin/python3; the package comes from //python:graphprof). Comparisons,
the session and argument checks are in graphprof_compare_test.py.

Standalone: PYTHONPATH=bazel-bin/python /usr/bin/python3 python/tests/graphprof_test.py
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

from graphprof_fixtures import graphprof, torch  # first: the sanitizer preload, then torch
from graphprof_fixtures import ControlFlow, Raises, ConvBn, _resnet18, _runfile


class ResNet18Test(unittest.TestCase):
    """A scripted torchvision resnet18, profiled once for all these tests."""

    @classmethod
    def setUpClass(cls):
        cls.module = _resnet18()
        cls.x = torch.randn(1, 3, 224, 224)
        cls.report = graphprof.profile(cls.module, cls.x, runs=3, warmup=1)
        cls.json = json.loads(cls.report.to_json())

    def test_report(self):
        r = self.report
        self.assertEqual(r.model, "ResNet.forward")
        self.assertEqual(r.runs, 3)
        self.assertEqual(r.warmup, 1)
        self.assertIs(r.verified, True)
        self.assertTrue(r.verification["identical"])
        self.assertEqual(r.verification["reference"], "module.forward")
        self.assertEqual(r.parameters, 11689512)
        self.assertEqual(len(r.run_ns), 3)
        self.assertGreater(r.coverage, 0.9)
        self.assertLessEqual(r.coverage, 1.0)
        self.assertGreater(r.memory["peak_bytes"], 0)
        self.assertIn("output identical to module.forward", str(r))
        self.assertIn("by kind (self time)", str(r))
        self.assertIn("verified", repr(r))

    def test_dataframe_columns(self):
        numbers = ["count", "mean_us", "percent", "self_us", "self_percent", "std_us", "min_us", "median_us", "p90_us",
                   "max_us", "total_us", "flops", "bytes", "gflops", "gbps", "intensity", "bound", "roof_gbps",
                   "attainable_fraction", "work_counted", "alloc_bytes", "peak_bytes", "output_bytes"]
        expected = {
            "node": ("id", ["name", "kind", "module", "shapes", "source", "depth"]),
            "kind": ("name", ["nodes"]),
            "module": ("name", ["depth", "nodes"]),
            "shape": ("name", ["kind", "shapes", "nodes"]),
        }
        for view, (index, descriptive) in expected.items():
            with self.subTest(view=view):
                df = self.report.to_pandas(view)
                self.assertEqual(df.index.name, index)
                self.assertEqual(list(df.columns), descriptive + numbers)
                self.assertTrue(df.index.is_unique)
        nodes = self.report.to_pandas("node")
        self.assertEqual(len(nodes), len(self.json["nodes"]))
        self.assertEqual(str(nodes["mean_us"].dtype), "float64")
        self.assertEqual(str(nodes["peak_bytes"].dtype), "int64")
        # Rows in the tables' order: by mean, descending.
        self.assertTrue(nodes["mean_us"].is_monotonic_decreasing)
        kinds = self.report.to_pandas("kind")
        self.assertEqual(kinds.index[0], "aten::conv2d")
        self.assertEqual(kinds.loc["aten::conv2d", "nodes"], 20)
        self.assertEqual(kinds.loc["aten::conv2d", "count"], 20)
        self.assertEqual(len(self.report.to_pandas("kind", top=3)), 3)

    def test_dataframe_equals_json(self):
        """The DataFrame's numbers are the JSON report's, of the same run."""
        df = self.report.to_pandas("node")
        by_id = {n["id"]: n for n in self.json["nodes"]}
        for node_id, row in df.iterrows():
            n = by_id[node_id]
            self.assertEqual(row["name"], n["name"])
            self.assertEqual(row["kind"], n["kind"])
            self.assertEqual(row["module"], n["module"])
            # Raw samples (exact) and the JSON's derived fields (10 digits).
            total = n["total_ns"]
            self.assertAlmostEqual(row["mean_us"], sum(total) / len(total) / 1e3, delta=1e-9)
            self.assertAlmostEqual(row["min_us"], min(total) / 1e3, delta=1e-9)
            self.assertAlmostEqual(row["max_us"], max(total) / 1e3, delta=1e-9)
            self.assertAlmostEqual(row["total_us"], sum(total) / 1e3, delta=1e-9)
            self.assertAlmostEqual(row["count"], sum(n["calls"]) / len(n["calls"]), delta=1e-12)
            for column in ("mean_us", "std_us", "median_us", "p90_us", "self_us", "percent"):
                self.assertTrue(math.isclose(row[column], n[column], rel_tol=1e-9, abs_tol=1e-9),
                                (node_id, column, row[column], n[column]))
            self.assertEqual(row["alloc_bytes"], n["memory"]["allocated_bytes"])
            self.assertEqual(row["peak_bytes"], n["memory"]["peak_bytes"])
        # Per kind: the self times of its nodes added up, run by run.
        kinds = self.report.to_pandas("kind")
        runs = self.json["runs"]
        for kind, row in kinds.iterrows():
            members = [n for n in self.json["nodes"] if n["kind"] == kind]
            self.assertEqual(row["nodes"], len(members))
            per_run = [0] * runs
            for n in members:
                # self series = total minus direct children's totals (If/Loop); leaves: total.
                children = [c for c in self.json["nodes"] if c["parent"] == n["id"]]
                for r in range(runs):
                    per_run[r] += n["total_ns"][r] - sum(c["total_ns"][r] for c in children)
            self.assertAlmostEqual(row["mean_us"], sum(per_run) / runs / 1e3, delta=1e-6)
        # The summary numbers.
        self.assertEqual(self.report.run_ns, self.json["run_ns"])
        self.assertTrue(math.isclose(self.report.total_us, self.json["total_us"], rel_tol=1e-9))

    def test_nodes_are_plain_records(self):
        nodes = self.report.nodes
        self.assertEqual(len(nodes), len(self.json["nodes"]))
        for record, n in zip(nodes, self.json["nodes"]):
            self.assertIsInstance(record, dict)
            for key in ("id", "parent", "depth", "name", "kind", "schema", "module", "source", "input_shapes",
                        "output_shapes", "calls", "total_ns"):
                self.assertEqual(record[key], n[key], key)
        convs = [n for n in nodes if n["kind"] == "aten::conv2d" and n["executed"]]
        self.assertEqual(len(convs), 20)
        self.assertEqual(convs[0]["module"], "conv1")

    def test_json_round_trip(self):
        text = self.report.to_json()
        again = graphprof.Report.from_json(text)
        self.assertEqual(again.to_json(), text)
        self.assertTrue(again.to_pandas("kind").equals(self.report.to_pandas("kind")))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            self.report.save(path)
            self.assertEqual(graphprof.Report.load(path).to_json(), text)
        with self.assertRaises(graphprof.GraphprofError):
            graphprof.Report.from_json("{not json")

    def test_renderings(self):
        r = self.report
        self.assertIn("top nodes", r.table())
        self.assertIn("by module", r.table("module", top=5))
        with self.assertRaises(graphprof.InvalidArgumentError) as e:
            r.table("module", sort="bogus")
        self.assertIn("bogus", str(e.exception))
        with self.assertRaises(ValueError):
            r.to_pandas("bogus")
        self.assertTrue(r.to_csv("kind").startswith("id,depth,name,kind,module,nodes,count,mean_us,percent"))
        self.assertIn("conv2d", r.annotated_ir())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace.json")
            r.save_trace(path)
            with open(path) as f:
                trace = json.load(f)
            events = trace["traceEvents"] if isinstance(trace, dict) else trace
            self.assertGreater(sum(1 for e in events if e.get("cat") == "node"), 3 * 300)
            self.assertEqual(os.listdir(d), ["trace.json"])  # no temporary left behind
        page = r.html()
        self.assertIn("<html", page[:200].lower())
        self.assertTrue(r._repr_html_().startswith("<iframe srcdoc="))

    def test_same_numbers_as_passing_through_cli_json(self):
        """Report.from_json reads profile_graph's own JSON (the schema is shared)."""
        cli = _runfile("tools/profile_graph")
        if not os.path.exists(cli):
            self.skipTest("no profile_graph binary")
        with tempfile.TemporaryDirectory() as d:
            model = os.path.join(d, "m.pt")
            inputs = os.path.join(d, "in.pt")
            self.module.save(model)
            torch.save(self.x, inputs)
            out = os.path.join(d, "r.json")
            subprocess.run([cli, "--model=" + model, "--inputs=" + inputs, "--runs=1", "--warmup=0",
                            "--format=json", "--output=" + out], check=True, capture_output=True)
            r = graphprof.Report.load(out)
        self.assertEqual(r.runs, 1)
        self.assertEqual(r.verified, True)
        # The same graph: the same nodes, kinds and module paths as from Python.
        self.assertEqual([(n["kind"], n["module"]) for n in r.nodes],
                         [(n["kind"], n["module"]) for n in self.report.nodes])


class ControlFlowTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = torch.jit.script(ControlFlow().eval())
        cls.x = torch.randn(4, 8)

    def test_profile(self):
        r = graphprof.profile(self.module, self.x, 5, [True, False], runs=4, warmup=1)
        self.assertIs(r.verified, True)
        # The timer: one read per node, one per block entered, all taken off.
        # Its cost is measured (timed runs against plain ones, clamped at 0):
        # on a loaded machine, under ASan, the difference can be 0, so only
        # its sign and the relations between the parts are checked here.
        self.assertIs(r.compensated, True)
        self.assertGreaterEqual(r.timer_overhead_ns, 0)
        self.assertGreaterEqual(r.timer_inner_ns, 0)
        self.assertLessEqual(r.timer_inner_ns, r.timer_overhead_ns)
        self.assertEqual(r.timer_block_ns, r.timer_overhead_ns)
        self.assertIs(graphprof.profile(self.module, self.x, 5, [True, False], runs=1, compensate=False).compensated,
                      False)
        nodes = {n["kind"]: n for n in reversed(r.nodes)}
        loop = nodes["prim::Loop"]
        self.assertEqual(loop["calls"], [1] * 4)
        linear = nodes["aten::linear"]
        self.assertEqual(linear["calls"], [3] * 4)  # i = 0, 2, 4
        self.assertEqual(nodes["aten::relu"]["calls"], [2] * 4)
        self.assertEqual(linear["depth"], 2)  # Loop -> If -> linear
        self.assertEqual(linear["module"], "lin")
        kinds = r.to_pandas("kind")
        self.assertEqual(kinds.loc["aten::linear", "count"], 3)
        self.assertEqual(kinds.loc["prim::If", "count"], 5)
        nodes_df = r.to_pandas("node")
        self.assertEqual(nodes_df.loc[linear["id"], "depth"], 2)

    def test_inputs_converted_like_torchscript(self):
        # A tuple for the list, an int-like bool: TorchScript's conversions.
        r = graphprof.profile(self.module, self.x, 2, (False,), runs=1, warmup=0)
        self.assertIs(r.verified, True)

    def test_scripted_traced_function(self):
        r = graphprof.profile(ControlFlow().eval(), self.x, 2, [True], runs=1, warmup=0)
        self.assertEqual(r.model, "ControlFlow.forward")
        self.assertIs(r.verified, True)
        seq = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
        traced = graphprof.profile(seq, self.x, runs=1, warmup=0, trace=True)
        self.assertIs(traced.verified, True)
        self.assertEqual(sorted({n["module"] for n in traced.nodes if n["kind"].startswith("aten::")}), ["0", "1"])

        @torch.jit.script
        def scale(a, k: int):
            return a * k + 1

        f = graphprof.profile(scale, self.x, 3, runs=1, warmup=0)
        self.assertEqual(f.model, "scale")
        self.assertIs(f.verified, True)
        with self.assertRaises(graphprof.InvalidArgumentError):
            graphprof.profile(scale, self.x, 3, passes="freeze")

    def test_bad_inputs(self):
        m, x = self.module, self.x
        cases = [
            ((x,), "ControlFlow.forward takes 3 inputs (x: Tensor, n: int, flags: List[bool]) but got 1"),
            ((x, 1, [True], 2), "ControlFlow.forward takes 3 inputs (x: Tensor, n: int, flags: List[bool]) but got 4"),
            ((x, "two", [True]), "ControlFlow.forward: input 2 (n) must be int but got str"),
            (("x", 2, [True]), "ControlFlow.forward: input 1 (x) must be Tensor but got str"),
            ((x, 2, ["yes"]), "ControlFlow.forward: input 3 (flags) must be List[bool] but got list"),
        ]
        for inputs, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(graphprof.InvalidArgumentError) as e:
                    graphprof.profile(m, *inputs, runs=1)
                self.assertEqual(str(e.exception), message)
                self.assertEqual(e.exception.code, "INVALID_ARGUMENT")
                self.assertIsInstance(e.exception, ValueError)
        # A shape the model cannot take: the failing node, where, and why.
        with self.assertRaises(graphprof.InvalidArgumentError) as e:
            graphprof.profile(m, torch.randn(4, 3), 1, [True], runs=1)
        self.assertRegex(str(e.exception), r"^warm-up run 1: node \d+ lin/linear \(.*\): mat1 and mat2 shapes")
        self.assertNotIn("\n", str(e.exception))

    def test_bad_options(self):
        m, x = self.module, self.x
        for kwargs, message in [({"runs": 0}, "runs must be at least 1"),
                                ({"warmup": -1}, "warmup must be 0 or more"),
                                ({"method": "nope"}, "ControlFlow has no method 'nope'")]:
            with self.subTest(kwargs=kwargs):
                with self.assertRaises(graphprof.InvalidArgumentError) as e:
                    graphprof.profile(m, x, 1, [True], **kwargs)
                self.assertEqual(str(e.exception), message)
        with self.assertRaises(graphprof.InvalidArgumentError) as e:
            graphprof.profile(m, x, 1, [True], passes="freeze,nope")
        self.assertTrue(str(e.exception).startswith("unknown pass 'nope' (known: freeze, "))
        with self.assertRaises(TypeError):
            graphprof.profile(42, x)
        with self.assertRaises(TypeError):
            graphprof.profile(m, x, 1, [True], passes=3)
        with self.assertRaises(graphprof.InvalidArgumentError) as e:
            graphprof.profile(m, x, 1, [True], loss_output=0)
        self.assertEqual(str(e.exception), "loss_output needs backward=True")
        with self.assertRaises(graphprof.InvalidArgumentError) as e:
            graphprof.profile(m, x, 1, [True], clock="sundial")
        self.assertIn("sundial", str(e.exception))
        with self.assertRaises(ValueError):
            graphprof.profile(m, x, 1, [True], trace=True)

    def test_messages_match_the_cli(self):
        """Engine failures read as profile_graph's "profile_graph: <message>"."""
        cli = _runfile("tools/profile_graph")
        if not os.path.exists(cli):
            self.skipTest("no profile_graph binary")
        raises = torch.jit.script(Raises())
        # (profile_graph --inputs takes tensors only.)
        cases = [(raises, (torch.ones(3),)), (torch.jit.script(ConvBn().eval()), (torch.randn(1, 4, 8, 8),))]
        with tempfile.TemporaryDirectory() as d:
            for module, inputs in cases:
                model = os.path.join(d, "m.pt")
                saved_inputs = os.path.join(d, "in.pt")
                module.save(model)
                torch.save(inputs, saved_inputs)
                cli_run = subprocess.run([cli, "--model=" + model, "--inputs=" + saved_inputs, "--runs=1"],
                                         capture_output=True, text=True)
                self.assertEqual(cli_run.returncode, 1, cli_run.stderr)
                cli_message = cli_run.stderr.strip().splitlines()[-1]
                # The same module: the archive the CLI read (source locations
                # come from its debug info, which an in-memory module has its own of).
                with self.assertRaises(graphprof.GraphprofError) as e:
                    graphprof.profile(torch.jit.load(model), *inputs, runs=1)
                self.assertEqual("profile_graph: " + str(e.exception), cli_message)
                # In memory: the same message but for the source location.
                with self.assertRaises(graphprof.GraphprofError) as e:
                    graphprof.profile(module, *inputs, runs=1)
                strip = lambda m: re.sub(r" \([^()]*:\d+\):", ":", m)
                self.assertEqual(strip("profile_graph: " + str(e.exception)), strip(cli_message))

    def test_model_exception(self):
        with self.assertRaises(graphprof.InvalidArgumentError) as e:
            graphprof.profile(torch.jit.script(Raises()), torch.ones(3), runs=1)
        self.assertIn("ValueError: x must not be positive", str(e.exception))

    def test_verification_failure(self):
        class Noisy(torch.nn.Module):
            def forward(self, x):
                return x + torch.rand(1)  # different on every run

        with self.assertRaises(graphprof.VerificationError) as e:
            graphprof.profile(Noisy(), torch.zeros(2), runs=1, warmup=0)
        self.assertTrue(str(e.exception).startswith("output differs from native forward: "))
        self.assertIs(e.exception.report.verified, False)
        r = graphprof.profile(Noisy(), torch.zeros(2), runs=1, warmup=0, verify=False)
        self.assertIsNone(r.verified)


class InterpreterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = torch.jit.script(ControlFlow().eval())
        cls.x = torch.randn(4, 8)

    def test_plain_run_equals_module(self):
        with torch.no_grad():
            expected = self.module(self.x, 3, [True, False])
            got = graphprof.Interpreter(self.module).run(self.x, 3, [True, False])
        self.assertTrue(torch.equal(expected, got))

    def test_run_node_override(self):
        class Recorder(graphprof.Interpreter):
            def __init__(self, module):
                super().__init__(module)
                self.seen = []

            def run_node(self, node):
                inputs = node.inputs
                super().run_node(node)
                self.seen.append((node.kind, node.depth, len(inputs), node.outputs))

        rec = Recorder(self.module)
        with torch.no_grad():
            out = rec.run(self.x, 3, [True, False])
            self.assertTrue(torch.equal(out, self.module(self.x, 3, [True, False])))
        kinds = [k for k, _, _, _ in rec.seen]
        self.assertEqual(kinds.count("aten::linear"), 2)
        self.assertEqual(kinds.count("aten::relu"), 1)
        linear = [s for s in rec.seen if s[0] == "aten::linear"][0]
        self.assertEqual(linear[1], 2)
        self.assertEqual(linear[2], 3)  # x, weight, bias
        self.assertEqual(tuple(linear[3][0].shape), (4, 8))

    def test_replace_output_and_keep_arguments(self):
        class Sevens(graphprof.Interpreter):
            def run_node(self, node):
                if node.kind == "aten::relu":
                    node.set_output(0, torch.full_like(node.inputs[0], 7.0))
                    return
                super().run_node(node)

        out = Sevens(self.module).run(self.x, 1, [False])
        self.assertTrue(torch.equal(out, torch.full((4, 8), 8.0)))

        class After(graphprof.Interpreter):
            def run_node(self, node):
                super().run_node(node)
                if node.kind == "aten::linear":
                    self.args = node.inputs

        a = After(self.module, keep_arguments=True)
        a.run(self.x, 1, [True])
        self.assertTrue(torch.equal(a.args[0], self.x))

        class NoKeep(graphprof.Interpreter):
            def run_node(self, node):
                super().run_node(node)
                if node.kind == "aten::linear":
                    node.inputs

        with self.assertRaises(ValueError):
            NoKeep(self.module).run(self.x, 1, [True])

    def test_exception_propagates_unchanged(self):
        class Boom(graphprof.Interpreter):
            def run_node(self, node):
                if node.kind == "aten::linear":
                    raise KeyError("boom")
                super().run_node(node)

        b = Boom(self.module)
        with self.assertRaises(KeyError):
            b.run(self.x, 2, [True])
        # Still usable afterwards.
        self.assertEqual(tuple(b.run(self.x, 1, [False]).shape), (4, 8))
        with self.assertRaises(graphprof.InvalidArgumentError):
            graphprof.Interpreter(self.module).run(self.x)

    def test_one_run_at_a_time(self):
        class Reenter(graphprof.Interpreter):
            def run_node(self, node):
                self.run(torch.zeros(4, 8), 1, [True])

        with self.assertRaises(ValueError) as e:
            Reenter(self.module).run(self.x, 1, [True])
        self.assertIn("already running", str(e.exception))

    def test_node_outside_run_node(self):
        class Keep(graphprof.Interpreter):
            def run_node(self, node):
                self.last = node
                super().run_node(node)

        k = Keep(self.module)
        k.run(self.x, 1, [True])
        self.assertIsInstance(k.last.kind, str)
        with self.assertRaises(ValueError):
            k.last.outputs


class TrainingStepTest(unittest.TestCase):
    """backward=True: per-node backward time, gradients checked against native."""

    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.module = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                                          torch.nn.Linear(256, 10)))
        cls.x = torch.randn(16, 64)

    def test_backward_columns_and_gradients(self):
        r = graphprof.profile(self.module, self.x, runs=3, warmup=1, backward=True)
        self.assertIs(r.verified, True)
        self.assertTrue(r.gradient_verification["identical"])
        self.assertEqual(r.loss, "the sum of all floating outputs")
        df = r.to_pandas()
        self.assertIn("backward_us", df.columns)
        self.assertIn("backward_fns", df.columns)
        linears = df[df["kind"] == "aten::linear"]
        self.assertEqual(len(linears), 2)
        self.assertTrue((linears["backward_us"] > 0).all())
        self.assertIn("(unattributed)", list(df["name"]))
        self.assertIn("backward_us", r.table())
        self.assertIn("gradients identical to", r.summary())
        # The parameters keep the last run's gradients.
        self.assertIsNotNone(self.module[0].weight.grad)
        # Every node's memory keeps what it saved for backward; the nodes' own
        # parts add up to the summary's.
        saved = [n["memory"]["self_saved_bytes"] for n in r.nodes if n["memory"] is not None]
        self.assertTrue(all("saved_bytes" in n["memory"] for n in r.nodes if n["memory"] is not None))
        self.assertGreater(sum(saved), 0)
        self.assertEqual(sum(saved), r.memory["saved_bytes"])

    def test_loss_output_must_be_a_scalar(self):
        with self.assertRaises(graphprof.InvalidArgumentError) as e:
            graphprof.profile(self.module, self.x, runs=1, warmup=0, backward=True, loss_output=0)
        self.assertIn("must be a one-element floating tensor", str(e.exception))




class SideEffectsTest(unittest.TestCase):
    """A module calling torch.save is refused before anything runs, and runs
    with allow_side_effects=True (interpreter/side_effects.h)."""

    def test_saving_module_refused_then_allowed(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "written.pt")

            class Saves(torch.nn.Module):
                def __init__(self, path: str):
                    super().__init__()
                    self.path = path

                def forward(self, x):
                    torch.save(x, self.path)
                    return x + 1

            m = torch.jit.script(Saves(path))
            with self.assertRaises(graphprof.FailedPreconditionError) as e:
                graphprof.profile(m, torch.ones(2), runs=1, warmup=0)
            self.assertIn("aten::save", str(e.exception))
            self.assertNotIn("\n", str(e.exception))
            self.assertFalse(os.path.exists(path), "the model ran")
            with self.assertRaises(graphprof.FailedPreconditionError):
                graphprof.ab(m, "cse", torch.ones(2), runs=1, warmup=0)
            self.assertFalse(os.path.exists(path))
            r = graphprof.profile(m, torch.ones(2), runs=1, warmup=0, allow_side_effects=True)
            self.assertTrue(r.verified)
            self.assertTrue(os.path.exists(path))


class FilePathTest(unittest.TestCase):
    """graphprof.profile(path): the file opened by the model-source layer, as
    profile_graph --model opens it; what it cannot open is one error line."""

    def test_a_saved_module_with_defaults_and_bad_paths(self):
        class WithDefault(torch.nn.Module):
            def forward(self, x, scale: float = 0.5):
                return torch.relu(x) * scale

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.pt")
            torch.jit.script(WithDefault()).save(path)
            r = graphprof.profile(path, torch.randn(3), runs=1, warmup=0)
            self.assertIs(r.verified, True)
            self.assertEqual(r.model, path)
            self.assertIn("inputs not given took the method's defaults: scale=0.5", r.notes)
            with self.assertRaises(graphprof.InvalidArgumentError) as e:
                graphprof.profile(path, runs=1)  # a module supplies no inputs
            self.assertIn("needs inputs for (x: Tensor, scale: float)", str(e.exception))
            for bad in (os.path.join(d, "missing.pt"), d):
                with self.assertRaises(graphprof.GraphprofError) as e:
                    graphprof.profile(bad, torch.randn(3), runs=1)
                self.assertNotIn("\n", str(e.exception))


class ImportTest(unittest.TestCase):
    def test_pandas_not_imported_until_used(self):
        code = "import sys, graphprof; print('pandas' in sys.modules)"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "False")


if __name__ == "__main__":
    unittest.main()
