"""graphprof.profile() of a format only tests know (run by
//python:source_registry_test, Bazel only).

tests/graph_in_code_source.cc registers "in_code:NAME" (a graph built in
code) in its own file; this package's extension links it, and nothing else
of python/ or sources/ names it. graphprof.profile("in_code:affine") opens
it through the model-source layer and gives the report profile_graph linked
with the same format gives (tests/source_registry_test.cc drives the CLI's
paths: --ab=none, --compare_model, --workers).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

_RUNFILES = os.path.join(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", "graphprof"))
sys.path.insert(0, os.path.join(_RUNFILES, "python", "with_test_source"))

import torch  # noqa: E402  first: registers torch's pybind11 types the extension uses
import graphprof  # noqa: E402


def _comparable(report):
    """What two profiles of one graph share: all but timings and the machine's state."""
    nodes = [{k: n.get(k) for k in ("kind", "module", "source", "label", "output_shapes", "flops", "bytes")}
             for n in report["nodes"]]
    notes = [n for n in report["notes"] if not n.startswith("live memory")]
    return report["model"], report["verified"], report["verification"]["reference"], nodes, notes


class SourceRegistryTest(unittest.TestCase):
    def test_the_package_is_the_test_build(self):
        self.assertIn("with_test_source", graphprof.__file__)

    def test_profile_opens_the_test_format(self):
        r = graphprof.profile("in_code:affine", runs=2, warmup=1)
        self.assertIs(r.verified, True)
        self.assertEqual(r.verification["reference"], "the graph built in code, run by the JIT")
        kinds = [n["kind"] for n in r.nodes if n["kind"] != "prim::Constant"]
        self.assertEqual(kinds, ["aten::mul", "aten::add", "aten::relu"])
        self.assertIn("a graph built in code (tests/graph_in_code_source.cc)", r.notes)
        self.assertIn("inputs: a 4x8 tensor made by the test's source", r.notes)
        # Given inputs instead of the source's.
        x = torch.randn(2, 3)
        given = graphprof.profile("in_code:affine", x, runs=2, warmup=1)
        self.assertIs(given.verified, True)
        self.assertNotIn("inputs: a 4x8 tensor made by the test's source", given.notes)
        with self.assertRaises(graphprof.InvalidArgumentError):
            graphprof.profile("in_code:affine", x, x, runs=1)
        with self.assertRaises(graphprof.InvalidArgumentError):
            graphprof.profile("in_code:affine", passes="cse")
        # Refusals name profile()'s arguments, not the CLI's flags.
        for kwargs, named in (({"backward": True}, "training steps (backward=True) need"),
                              ({"method": "predict"}, "has no methods (method=)")):
            with self.assertRaises(graphprof.InvalidArgumentError) as e:
                graphprof.profile("in_code:affine", runs=1, **kwargs)
            self.assertIn(named, str(e.exception))
            self.assertNotIn("--", str(e.exception))

    def test_the_same_report_as_the_cli(self):
        cli = os.path.join(_RUNFILES, "tests", "profile_graph_with_test_source")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "cli.json")
            subprocess.run([cli, "--model=in_code:affine", "--runs=2", "--warmup=1", "--threads=%d" % torch.get_num_threads(),
                            "--format=json", "--output=" + out], check=True, capture_output=True)
            with open(out) as f:
                from_cli = json.load(f)
        from_python = json.loads(graphprof.profile("in_code:affine", runs=2, warmup=1).to_json())
        self.assertEqual(_comparable(from_cli), _comparable(from_python))


if __name__ == "__main__":
    unittest.main()
