"""The CMake build and the Bazel build compile the same sources.

For every Bazel package that CMake builds, the set of .cc files named in its
BUILD equals the set named in its CMakeLists.txt (minus the few that only one
build has, listed below with the reason), and every C++ test of //tests is
registered with ctest. A source added to one build and not the other fails
here with its name.
"""
import os
import re
import sys
import unittest

# Packages with one CMake library each (the top-level CMakeLists.txt adds them).
PACKAGES = [
    "common", "ir", "ir/export", "ir/compiled", "interpreter", "profilers", "profilers/report", "profilers/work",
    "profilers/autograd", "profilers/compiled", "profilers/verification", "profilers/toolbox", "profilers/gpu", "profilers/session", "sources", "tools", "tools/zoo",
    "tools/gpu_check", "tests", "python", "bench",
]

# In one build only, and why.
BAZEL_ONLY = {
    # Generated from html/: Bazel's genrule and cmake/embed_html.cmake each
    # write it in their own output tree.
    "profilers/report": {"html_assets.cc"},
    # The benchmarks on LibTorch 1.13 (the CMake build has only the one for
    # AOTInductor packages, below).
    "bench": {"backward_overhead.cc", "export_overhead.cc", "interpreter_overhead.cc", "peaks.cc",
              "profiler_overhead.cc", "scale.cc"},
}
CMAKE_ONLY = {
    # AOTInductor packages run on LibTorch 2.6+ only: the CMake build in the
    # Debian 13 root; Bazel's LibTorch is 1.13 (compiled_package_test and
    # compiled_profile_test, in both, cover what 1.13 can run).
    # The ranks' collectives need LibTorch 2.x's functional collectives and
    # gloo's headers (the Debian 13 root).
    "tests": {"compiled_cli_test.cc", "compiled_torchvision_test.cc", "ranks_collectives_test.cc"},
    "bench": {"compiled_overhead.cc"},
}

CC = re.compile(r"[\"\s(]([A-Za-z0-9_./-]+\.cc)\b")


def bazel_sources(text):
    # Every .cc string in the BUILD file: srcs of libraries, binaries, tests.
    return set(re.findall(r'"([A-Za-z0-9_./-]+\.cc)"', text))


def cmake_sources(text, package):
    names = set()
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        names.update(m for m in CC.findall(" " + line))
    if package == "tests":
        # graphprof_test(<name> ...) compiles <name>.cc.
        names.update(n + ".cc" for n in re.findall(r"^graphprof_test\((\w+)", text, re.M))
    return names


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


class CMakeSourcesTest(unittest.TestCase):
    root = "."

    def test_every_package_has_the_same_sources(self):
        for package in PACKAGES:
            with self.subTest(package=package):
                bazel = bazel_sources(read(self.root, package + "/BUILD")) - BAZEL_ONLY.get(package, set())
                cmake = cmake_sources(read(self.root, package + "/CMakeLists.txt"), package)
                cmake -= CMAKE_ONLY.get(package, set())
                self.assertEqual(sorted(bazel - cmake), [],
                                 f"in {package}/BUILD, not in {package}/CMakeLists.txt")
                self.assertEqual(sorted(cmake - bazel), [],
                                 f"in {package}/CMakeLists.txt, not in {package}/BUILD")

    def test_every_package_is_added(self):
        top = read(self.root, "CMakeLists.txt")
        added = set(re.findall(r"^\s*add_subdirectory\(([\w/]+)\)", top, re.M))
        self.assertEqual(sorted(set(PACKAGES) - added), [])
        # And every package the top level adds is compared here.
        self.assertEqual(sorted(added - set(PACKAGES)), [])

    def test_the_comparison_sees_a_missing_source(self):
        # The check itself: a file dropped from a CMake list is reported.
        build = 'cc_library(name = "a", srcs = ["a.cc", "b.cc"])'
        cmake = "graphprof_package(x\n  SOURCES a.cc  # b.cc is elsewhere\n)"
        self.assertEqual(bazel_sources(build) - cmake_sources(cmake, "x"), {"b.cc"})
        self.assertEqual(cmake_sources("graphprof_test(foo_test TOOL)", "tests"), {"foo_test.cc"})


if __name__ == "__main__":
    if len(sys.argv) > 1 and os.path.isdir(sys.argv[-1]):
        CMakeSourcesTest.root = sys.argv.pop()
    unittest.main()
