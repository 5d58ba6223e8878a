// The source of graphprof_torch_pch (cmake/GraphprofPch.cmake): the target
// that owns the precompiled torch/script.h every other target reuses.
