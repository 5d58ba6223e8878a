"""CUDA as a private dependency of a library (see third_party/system/cuda.BUILD).

    cc_library(name = "x", srcs = ["x.cc"] + cuda_srcs(), copts = cuda_copts(),
               deps = [...] + cuda_deps())

Under --config=cuda the toolkit's headers are inputs of this library's own
compiles only (a private -isystem), and its link options reach the binaries;
without it all three are empty.
"""

def cuda_srcs():
    return select({
        "//:with_cuda": ["@cuda//:headers"],
        "//conditions:default": [],
    })

def cuda_copts():
    return select({
        "//:with_cuda": ["-isystem", "external/cuda/include"],
        "//conditions:default": [],
    })

def cuda_deps():
    return select({
        "//:with_cuda": ["@cuda//:libs"],
        "//conditions:default": [],
    })
