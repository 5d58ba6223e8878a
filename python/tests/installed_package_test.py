"""The package pip installed (tools/pip_check.sh runs this with
GRAPHPROF_TEST_INSTALLED=1): what it records about its build, its command
line, and its refusal of a torch it was not built against."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from importlib import metadata

from graphprof_fixtures import graphprof, torch  # first: the sanitizer preload, then torch

from graphprof import _build_info, _cli


class InstalledPackageTest(unittest.TestCase):
    def setUp(self):
        if os.environ.get("GRAPHPROF_TEST_INSTALLED") != "1":
            self.skipTest("tests the pip-installed package (tools/pip_check.sh)")

    def test_built_for_this_torch(self):
        self.assertEqual(os.path.realpath(_build_info.PYTHON), os.path.realpath(sys.executable))
        # The programs load the very LibTorch this Python's torch loaded.
        with open("/proc/self/maps") as f:
            loaded = {os.path.realpath(line.split()[-1]) for line in f if "libtorch_cpu.so" in line}
        self.assertEqual(len(loaded), 1, loaded)
        p = subprocess.run(["ldd", _cli.tool_path("profile_graph_full")], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        resolved = {os.path.realpath(m) for m in re.findall(r"libtorch_cpu\.so\S* => (\S+)", p.stdout)}
        self.assertEqual(resolved, loaded, p.stdout)
        # The version names the torch: 0.1.0+torch2.6.0.
        version = metadata.version("graphprof")
        self.assertRegex(version, r"^\d+\.\d+\.\d+\+torch[0-9a-z.]+$")
        self.assertTrue(version.endswith(re.sub(r"[^0-9a-zA-Z]+", ".", torch.__version__).strip(".")), version)

    def test_binaries_inside_the_package(self):
        package = os.path.dirname(graphprof.__file__)
        for name in ("profile_graph", "profile_graph_full"):
            path = _cli.tool_path(name)
            self.assertEqual(os.path.dirname(os.path.dirname(path)), package)
            self.assertTrue(os.access(path, os.X_OK), path)

    def test_command_and_module_run_profile_graph(self):
        command = shutil.which("graphprof", path=os.path.dirname(sys.executable))
        self.assertIsNotNone(command, "no graphprof command beside " + sys.executable)
        with tempfile.TemporaryDirectory() as d:
            for argv in ([command], [sys.executable, "-m", "graphprof"]):
                out = os.path.join(d, "r.json")
                p = subprocess.run(argv + ["--zoo=mlp", "--runs=2", "--warmup=0", "--format=json",
                                           "--output=" + out], cwd=d, capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                r = graphprof.Report.load(out)
                self.assertTrue(r.verified)
                os.remove(out)
                # A usage error: profile_graph's exit status and one line, through the launcher.
                p = subprocess.run(argv + ["--runs=0"], cwd=d, capture_output=True, text=True)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn("--runs", p.stderr)
                self.assertEqual(os.listdir(d), [])

    def test_source_package_hiding_the_installed_one_said_in_one_line(self):
        source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # <checkout>/python
        self.assertTrue(os.path.isdir(os.path.join(source, "graphprof")), source)
        p = subprocess.run([sys.executable, "-c", "import graphprof"], cwd=source, capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(self._last_line(p), r"^ImportError: graphprof: .*/python/graphprof is graphprof's source "
                                             r"package .* it hides an installed graphprof")

    def _copy_with_build_info(self, d, **changes):
        """The installed package copied to d, its _build_info.py changed."""
        package = os.path.join(d, "graphprof")
        shutil.copytree(os.path.dirname(graphprof.__file__), package, symlinks=True)
        path = os.path.join(package, "_build_info.py")
        with open(path) as f:
            text = f.read()
        for name, value in changes.items():
            text, n = re.subn(r"^%s = .*$" % name, "%s = %s" % (name, value), text, flags=re.M)
            self.assertEqual(n, 1, name)
        with open(path, "w") as f:
            f.write(text)
        return dict(os.environ, PYTHONPATH=d)

    def _last_line(self, p):
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def test_other_torch_version_refused_at_import_in_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            env = self._copy_with_build_info(d, TORCH_VERSION='"0.0.1"')
            p = subprocess.run([sys.executable, "-c", "import graphprof"], env=env, capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertRegex(self._last_line(p), r"^ImportError: graphprof: .* was built against torch 0\.0\.1, "
                             r"but this Python \(.*\) has torch %s: reinstall graphprof" % re.escape(torch.__version__))
            # The command refuses it too, before starting profile_graph (exit 1, that one line).
            command = shutil.which("graphprof", path=os.path.dirname(sys.executable))
            p = subprocess.run([command, "--help"], env=env, capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertEqual(p.stdout, "")
            self.assertRegex(p.stderr, r"^graphprof: .* was built against torch 0\.0\.1, [^\n]*\n$")

    def test_other_cxx11_abi_refused_at_import_in_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            other = not bool(torch._C._GLIBCXX_USE_CXX11_ABI)
            env = self._copy_with_build_info(d, CXX11_ABI=str(other))
            p = subprocess.run([sys.executable, "-c", "import graphprof"], env=env, capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertRegex(self._last_line(p), r"^ImportError: graphprof: .* was compiled with "
                             r"_GLIBCXX_USE_CXX11_ABI=%d, but this Python's torch" % other)


if __name__ == "__main__":
    unittest.main()
