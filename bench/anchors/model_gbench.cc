// A TorchScript model's forward as a Google Benchmark, so that Google
// Benchmark's compare.py can judge the same pair as the gate
// (bench/gate_anchors.py, docs/statistics.md "Beside the anchors"):
//
//   model_gbench --model=m.pt --inputs=x.pt [--spin_us=N] [--benchmark_* flags]
//
// Each iteration: module.forward(x) at one intra-op thread, then, with
// --spin_us, a busy wait of N microseconds to a steady-clock deadline (the
// known slowdown, as graphprof's delay pass adds it). Built by
// bench/gate_anchors.py with g++ against Debian's LibTorch 1.13 and
// libbenchmark (not part of the Bazel or CMake builds).
#include <benchmark/benchmark.h>
#include <ATen/Parallel.h>
#include <torch/script.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::string g_model, g_inputs;
long g_spin_us = 0;

void Spin(long us) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < deadline) {
  }
}

void BM_Model(benchmark::State& state) {
  torch::jit::Module module = torch::jit::load(g_model);
  module.eval();
  std::ifstream file(g_inputs, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const c10::IValue x = torch::jit::pickle_load(bytes);
  torch::NoGradGuard no_grad;
  const std::vector<c10::IValue> inputs = {x};
  for (auto _ : state) {
    benchmark::DoNotOptimize(module.forward(inputs));
    if (g_spin_us > 0) Spin(g_spin_us);
  }
}
BENCHMARK(BM_Model)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--model=", 8) == 0) {
      g_model = argv[i] + 8;
    } else if (std::strncmp(argv[i], "--inputs=", 9) == 0) {
      g_inputs = argv[i] + 9;
    } else if (std::strncmp(argv[i], "--spin_us=", 10) == 0) {
      g_spin_us = std::stol(argv[i] + 10);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (g_model.empty() || g_inputs.empty()) {
    std::fprintf(stderr, "model_gbench: give --model=M.pt --inputs=X.pt\n");
    return 2;
  }
  at::set_num_threads(1);
  int count = static_cast<int>(rest.size());
  benchmark::Initialize(&count, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
