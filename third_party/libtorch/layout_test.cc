// The @libtorch repository: its headers compile (the C++ API directory
// included), its libraries link and run, and they are loaded from
// LIBTORCH_DIR/lib when the repository was made from LIBTORCH_DIR.
#include <dlfcn.h>
#include <link.h>
#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/version.h>

#include <climits>
#include <cstdlib>
#include <string>

namespace {

TEST(LibtorchLayout, HeadersLibrariesAndAScriptedFunction) {
  EXPECT_GE(TORCH_VERSION_MAJOR, 1);
  const at::Tensor x = torch::arange(6, torch::kFloat).reshape({2, 3});
  EXPECT_EQ(x.sum().item<float>(), 15.0f);
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(R"IR(
graph(%x : Tensor):
  %y : Tensor = aten::relu(%x)
  return (%y))IR",
                      graph.get());
  EXPECT_EQ(graph->outputs().size(), 1u);
}

// The path libtorch_cpu.so was loaded from, as the dynamic loader has it.
std::string LoadedLibtorchCpu() {
  std::string found;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) {
        const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (name.find("libtorch_cpu.so") != std::string::npos) *static_cast<std::string*>(data) = name;
        return 0;
      },
      &found);
  return found;
}

TEST(LibtorchLayout, LibrariesComeFromTheRepositorysDirectory) {
  const std::string root = GRAPHPROF_LIBTORCH_DIR;
  const std::string loaded = LoadedLibtorchCpu();
  ASSERT_FALSE(loaded.empty()) << "libtorch_cpu.so is not loaded";
  if (!root.empty()) {
    EXPECT_EQ(loaded.rfind(root + "/lib/", 0), 0u) << loaded << " is not under " << root << "/lib";
  }
}

}  // namespace
