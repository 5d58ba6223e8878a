"""CUDA as a private dependency of a library (see third_party/system/cuda.BUILD).

    cc_library(name = "x", srcs = ["x.cc"] + cuda_srcs(), copts = cuda_copts(),
               linkopts = cuda_linkopts(), deps = [...])

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

def cuda_linkopts():
    # Link options, not a dependency on @cuda: any cc dependency on an
    # external repository adds `-iquote external/<repo>` to every dependent's
    # compile, so every binary's objects would differ under --config=cuda.
    return select({
        "//:with_cuda": [
            "-L/usr/local/cuda/lib",
            "-Wl,-rpath,/usr/local/cuda/lib",
            "-Wl,-rpath,/usr/local/cuda/lib64",
            "-Wl,-rpath,/usr/local/cuda/extras/CUPTI/lib64",
            "-Wl,-rpath,/usr/local/cuda/targets/x86_64-linux/lib",
            "-lcupti",
            "-lcudart",
            "-ldl",
        ],
        "//conditions:default": [],
    })
