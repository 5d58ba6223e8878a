"""LibTorch's <torch/script.h>, precompiled once per build configuration.

A translation unit that includes torch/script.h spends most of its compile
time parsing LibTorch's headers: interpreter/interpreter.cc takes 14.5 s at
fastbuild, of which 6.7 s remain when the header comes precompiled (2-core
development machine, 2026-12-03; the objects are byte-identical). 87 of the
Bazel build's translation units include it.

  load("//third_party/libtorch:pch.bzl", "torch_cc_library", "torch_cc_test", "torch_cc_binary")

The torch_cc_* macros are cc_library / cc_test / cc_binary for targets whose
sources include torch/script.h: they add the shared precompiled header
(//third_party/libtorch:torch_pch) and force-include its wrapper first. A
source that includes torch/script.h itself still compiles without it (the
CMake build has its own, cmake/GraphprofPch.cmake), so a missing include is
not hidden. Targets that do not include torch/script.h use the native rules:
loading the 400 MB header would cost them more than it saves.

How: the torch_pch rule compiles a one-line wrapper (graphprof_torch_pch.h:
#include <torch/script.h>) with GCC's -x c++-header and exactly the command
line the C++ toolchain gives a PIC compile in the current configuration
(compilation mode, --copt/--cxxopt, sanitizers), next to the wrapper in the
bin directory. `-include third_party/libtorch/graphprof_torch_pch.h` then
finds the .gch through the `-iquote <bin>` every compile has. GCC uses a
precompiled header only when it is valid for the compile (same -O level,
macros, PIC): otherwise, e.g. for the -O2 sources of the timed loops, it
silently parses the wrapper instead, with the same result. Compilers other
than GCC (the fuzzers' clang) get the wrapper alone.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

_WRAPPER = "graphprof_torch_pch.h"

TORCH_PCH = "//third_party/libtorch:torch_pch"
TORCH_PCH_COPTS = ["-include", "third_party/libtorch/" + _WRAPPER]

def _torch_pch_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    torch = ctx.attr.torch[CcInfo].compilation_context
    wrapper = ctx.actions.declare_file(_WRAPPER)
    ctx.actions.write(wrapper, "// Precompiled by //third_party/libtorch:pch.bzl.\n#include <torch/script.h>\n")
    headers = [wrapper]

    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compiler = cc_common.get_tool_for_action(
        feature_configuration = feature_configuration,
        action_name = ACTION_NAMES.cpp_compile,
    )
    # The auto-configured toolchain names its compiler "compiler": go by the
    # tool (CC=clang for the fuzzers).
    tool = compiler.split("/")[-1]
    if ("gcc" in tool or "g++" in tool) and "clang" not in tool:
        gch = ctx.actions.declare_file(_WRAPPER + ".gch")
        variables = cc_common.create_compile_variables(
            feature_configuration = feature_configuration,
            cc_toolchain = cc_toolchain,
            user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + ["-x", "c++-header"],
            source_file = wrapper.path,
            output_file = gch.path,
            use_pic = True,
            include_directories = torch.includes,
            quote_include_directories = torch.quote_includes,
            system_include_directories = torch.system_includes,
            preprocessor_defines = torch.defines,
        )
        ctx.actions.run(
            executable = compiler,
            arguments = cc_common.get_memory_inefficient_command_line(
                feature_configuration = feature_configuration,
                action_name = ACTION_NAMES.cpp_compile,
                variables = variables,
            ),
            env = cc_common.get_environment_variables(
                feature_configuration = feature_configuration,
                action_name = ACTION_NAMES.cpp_compile,
                variables = variables,
            ),
            inputs = depset([wrapper], transitive = [torch.headers, cc_toolchain.all_files]),
            outputs = [gch],
            mnemonic = "TorchPch",
            progress_message = "Precompiling torch/script.h",
        )
        headers.append(gch)

    return [
        DefaultInfo(files = depset(headers)),
        CcInfo(compilation_context = cc_common.create_compilation_context(headers = depset(headers))),
    ]

torch_pch = rule(
    implementation = _torch_pch_impl,
    attrs = {
        "torch": attr.label(default = "@libtorch", providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

def _with_pch(kwargs):
    kwargs["copts"] = TORCH_PCH_COPTS + kwargs.get("copts", [])
    kwargs["deps"] = kwargs.get("deps", []) + [TORCH_PCH]
    return kwargs

def torch_cc_library(**kwargs):
    native.cc_library(**_with_pch(kwargs))

def torch_cc_test(**kwargs):
    native.cc_test(**_with_pch(kwargs))

def torch_cc_binary(**kwargs):
    native.cc_binary(**_with_pch(kwargs))
