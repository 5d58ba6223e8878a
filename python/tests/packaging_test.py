"""graphprof's pip build backend (python/packaging/), the parts that need no
build: the wheel it writes (RECORD, executable bits, the script), the one
line it prints under pip's build isolation or without torch, the version
label. tools/pip_check.sh tests a real install."""

import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGING = os.path.join(os.path.dirname(HERE), "packaging")
sys.path.insert(0, PACKAGING)

import torch_target  # noqa: E402
from wheel_writer import Metadata, write_wheel  # noqa: E402


class WheelWriterTest(unittest.TestCase):
    def test_record_hashes_sizes_and_modes(self):
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, "tool")
            with open(exe, "wb") as f:
                f.write(b"\x7fELF not really")
            os.chmod(exe, 0o755)
            py = os.path.join(d, "mod.py")
            with open(py, "w") as f:
                f.write("x = 1\n")
            out = os.path.join(d, "out")
            os.mkdir(out)
            m = Metadata("graphprof", "0.1.0+torch2.6.0", "s", ">=3.8")
            name = write_wheel(out, m, [("graphprof/mod.py", py), ("graphprof/bin/tool", exe)], "cp311-cp311-linux_x86_64",
                               texts=[(m.data_dir() + "/scripts/graphprof", "#!python\n", 0o755)])
            self.assertEqual(name, "graphprof-0.1.0+torch2.6.0-cp311-cp311-linux_x86_64.whl")
            self.assertEqual(os.listdir(out), [name])  # no partial file left
            with zipfile.ZipFile(os.path.join(out, name)) as z:
                names = z.namelist()
                record = z.read("graphprof-0.1.0+torch2.6.0.dist-info/RECORD").decode().splitlines()
                rows = {line.split(",")[0]: line.split(",")[1:] for line in record}
                self.assertEqual(sorted(rows), sorted(names))
                for arcname in names:
                    if arcname.endswith("/RECORD"):
                        self.assertEqual(rows[arcname], ["", ""])
                        continue
                    data = z.read(arcname)
                    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    self.assertEqual(rows[arcname], ["sha256=" + digest, str(len(data))], arcname)
                modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
                self.assertEqual(modes["graphprof/bin/tool"], 0o755)
                self.assertEqual(modes["graphprof-0.1.0+torch2.6.0.data/scripts/graphprof"], 0o755)
                self.assertEqual(modes["graphprof/mod.py"], 0o644)
                wheel = z.read("graphprof-0.1.0+torch2.6.0.dist-info/WHEEL").decode()
                self.assertIn("Root-Is-Purelib: false\n", wheel)
                self.assertIn("Tag: cp311-cp311-linux_x86_64\n", wheel)
                self.assertIn("Version: 0.1.0+torch2.6.0\n", z.read("graphprof-0.1.0+torch2.6.0.dist-info/METADATA").decode())

    def test_missing_file_leaves_no_wheel(self):
        with tempfile.TemporaryDirectory() as d:
            m = Metadata("graphprof", "0.1.0", "s", ">=3.8")
            with self.assertRaises(OSError):
                write_wheel(d, m, [("graphprof/x.py", os.path.join(d, "absent.py"))], "cp311-cp311-linux_x86_64")
            self.assertEqual(os.listdir(d), [])


class CmakeBuildTest(unittest.TestCase):
    def _tree(self, d, torch_version="2.6.0", abi=1, library="/usr/lib/x86_64-linux-gnu/libtorch.so"):
        os.makedirs(os.path.join(d, "python", "graphprof"))
        with open(os.path.join(d, "CMakeCache.txt"), "w") as f:
            f.write("TORCH_LIBRARY:FILEPATH=%s\n" % library)
        with open(os.path.join(d, "python", "graphprof", "_build_info.py"), "w") as f:
            f.write('TORCH_VERSION = "%s"   # x\nCXX11_ABI = bool(%d)  # y\n' % (torch_version, abi))

    def test_build_directory_of_another_torch_refused(self):
        import cmake_build
        here = torch_target.TorchTarget("2.6.0", cmake_dir=None, cxx11_abi=True,
                                        library_dir=os.path.realpath("/usr/lib/x86_64-linux-gnu"))
        for kwargs, expected in (({}, None), ({"torch_version": "2.5.1"}, "torch 2.5.1, this Python has 2.6.0"),
                                 ({"abi": 0}, "_GLIBCXX_USE_CXX11_ABI=0, this torch uses 1"),
                                 ({"library": "/opt/venv/torch/lib/libtorch.so"}, "LibTorch in /opt/venv/torch/lib")):
            with tempfile.TemporaryDirectory() as d:
                self._tree(d, **kwargs)
                if expected is None:
                    cmake_build.check_configured_for(d, here)
                    continue
                with self.assertRaises(torch_target.BuildError) as e:
                    cmake_build.check_configured_for(d, here)
                self.assertIn(expected, str(e.exception))
                self.assertIn("remove that directory", str(e.exception))

    def test_package_files_take_the_sources_not_stale_build_copies(self):
        import cmake_build
        with tempfile.TemporaryDirectory() as d:
            src, build = os.path.join(d, "src"), os.path.join(d, "build")
            os.makedirs(os.path.join(src, "python", "graphprof"))
            for name in ("__init__.py", "_cli.py"):
                open(os.path.join(src, "python", "graphprof", name), "w").close()
            self._tree(build)
            for name in ("_graphprof.so", "removed_module.py"):
                open(os.path.join(build, "python", "graphprof", name), "w").close()
            os.makedirs(os.path.join(build, "tools"))
            for tool in ("profile_graph", "profile_graph_full"):
                open(os.path.join(build, "tools", tool), "w").close()
            names = [name for name, _ in cmake_build.BuiltTree(src, build).package_files()]
            self.assertEqual(names, ["graphprof/__init__.py", "graphprof/_cli.py", "graphprof/_graphprof.so",
                                     "graphprof/_build_info.py", "graphprof/bin/profile_graph",
                                     "graphprof/bin/profile_graph_full"])
            os.remove(os.path.join(build, "tools", "profile_graph_full"))
            with self.assertRaises(torch_target.BuildError):
                cmake_build.BuiltTree(src, build).package_files()


class TorchTargetTest(unittest.TestCase):
    def test_local_version(self):
        t = torch_target.TorchTarget("1.13.0a0+gitunknown", cmake_dir=None, cxx11_abi=True, library_dir="/a")
        self.assertEqual(t.local_version(), "torch1.13.0a0.gitunknown")
        t = torch_target.TorchTarget("2.6.0", cmake_dir=None, cxx11_abi=True, library_dir="/a")
        self.assertEqual(t.local_version(), "torch2.6.0")
        other = torch_target.TorchTarget("2.6.0", cmake_dir=None, cxx11_abi=True, library_dir="/b")
        self.assertNotEqual(t.location_key(), other.location_key())

    def test_wheel_tag(self):
        import sysconfig
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        self.assertEqual(torch_target.wheel_tag(), "cp%d%d-cp%d%d-%s" % (sys.version_info[:2] * 2 + (platform,)))

    def _requires(self, extra_path, site=False):
        """get_requires_for_build_wheel as pip would call the hook, in a Python
        without site-packages (no torch; with `site`, this Python's own),
        extra_path on its PYTHONPATH."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([PACKAGING] + extra_path))
        code = "import graphprof_build_backend as b; print(b.get_requires_for_build_wheel())"
        return subprocess.run([sys.executable] + ([] if site else ["-S"]) + ["-c", code], env=env,
                              capture_output=True, text=True)

    def test_isolated_build_says_no_build_isolation_in_one_line(self):
        # Without torch (pip's isolation), and with one importable (a torch
        # in the isolated environment is not the user's): the same line.
        for site in (False, True):
            with tempfile.TemporaryDirectory(prefix="pip-build-env-") as env_dir:
                p = self._requires([env_dir], site=site)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stdout, "")
            lines = [line for line in p.stderr.splitlines() if line]
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertRegex(lines[0], r"^graphprof: this package builds .*pip's build isolation hides: install with "
                                       r"`pip install --no-build-isolation \.`")

    def test_not_isolated_with_torch_needs_nothing(self):
        p = self._requires([], site=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "[]")

    def test_no_torch_says_so(self):
        p = self._requires([])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr.strip(), r"^graphprof: .* has no torch \(.*\): install torch into it first")

    def test_this_python_has_a_torch_target(self):
        t = torch_target.TorchTarget.of_this_python()
        import torch
        self.assertEqual(t.version, torch.__version__)
        self.assertEqual(t.cxx11_abi, bool(torch._C._GLIBCXX_USE_CXX11_ABI))
        self.assertTrue(os.path.isfile(os.path.join(t.library_dir, "libtorch_cpu.so")) or
                        any(n.startswith("libtorch_cpu.so") for n in os.listdir(t.library_dir)), t.library_dir)


if __name__ == "__main__":
    unittest.main()
