// AOTInductor packages read without LibTorch (ir/compiled): the package's
// layout, hostile packages refused in one line, and the calls its wrapper
// source makes (an excerpt of the wrapper PyTorch 2.6 wrote for a small CNN,
// tests/compiled_cli_test.cc runs real packages compiled at test time).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/compiled/aoti_package.h"
#include "ir/compiled/wrapper_calls.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using testing::StoredZip;

// What PyTorch 2.6's wrapper says, cut down: two generated kernels with
// kernel profiling, one reused; extern calls after their comments; the
// kernels' bodies and the runtime's own `extern "C"` block left out.
constexpr char kWrapper[] = R"CPP(
extern "C" {
AOTIRuntimeError AOTInductorModelContainerRun(
    AOTInductorModelContainerHandle container_handle) {
}
} // extern "C"
#include <ATen/record_function.h>
extern "C"  void cpp_fused_convolution_0(const float* in_ptr0,
                       float* out_ptr2)
{
    RECORD_FUNCTION("graph_0_cpp_fused_convolution_0", c10::ArrayRef<c10::IValue>({}));
}
extern "C"  void cpp_fused_relu_1(float* in_out_ptr0)
{
    RECORD_FUNCTION("graph_0_cpp_fused_relu_1", c10::ArrayRef<c10::IValue>({}));
}
void AOTInductorModel::run_impl(
    AtenTensorHandle*
        input_handles, // array of input AtenTensorHandle; handles
    AOTIProxyExecutorHandle proxy_executor
) {
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 1);
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_2, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, this->device_idx_, &buf0_handle));
    cpp_fused_convolution_0((const float*)(arg10_1.data_ptr()), (float*)(buf2.data_ptr()));
    // Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
    AtenTensorHandle var_0 = buf2.get();
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_convolution(buf0, buf1, &var_0, var_array_0, 2, 1L, &buf3_handle));
    cpp_fused_relu_1((float*)(buf3.data_ptr()));
    // Topologically Sorted Source Nodes: [relu, linear], Original ATen: [aten.relu, aten.addmm]
    auto tmp_tensor_handle_0 = reinterpret_tensor_wrapper(fc_weight, 2, int_array_0, int_array_1, 0L);
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf7, buf6, buf5, tmp_tensor_handle_0_raii, 1L, 1L));
    cpp_fused_relu_1((float*)(buf7.data_ptr()));
    output_handles[0] = buf7.release();
} // AOTInductorModel::run_impl
} // namespace torch::aot_inductor
)CPP";

TEST(WrapperCallsTest, ReadsGeneratedAndExternCallsInOrder) {
  absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(kWrapper, "w.cpp");
  ASSERT_TRUE(calls.ok()) << calls.status();
  ASSERT_EQ(calls->calls.size(), 5u);
  const std::vector<std::string> names = {"cpp_fused_convolution_0", "aten::convolution", "cpp_fused_relu_1",
                                          "aten::addmm_out", "cpp_fused_relu_1"};
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(calls->calls[i].name, names[i]) << i;
  EXPECT_EQ(calls->calls[0].kind, CompiledCall::Kind::kGenerated);
  EXPECT_EQ(calls->calls[0].record_name, "graph_0_cpp_fused_convolution_0");
  EXPECT_TRUE(calls->calls[0].nodes.empty());  // 2.6 names no nodes of a generated kernel
  EXPECT_EQ(calls->calls[1].kind, CompiledCall::Kind::kExtern);
  EXPECT_EQ(calls->calls[1].callee, "aoti_torch_cpu_convolution");
  EXPECT_EQ(calls->calls[1].nodes, std::vector<std::string>({"conv2d"}));
  EXPECT_EQ(calls->calls[1].aten, std::vector<std::string>({"aten.convolution"}));
  EXPECT_EQ(calls->calls[3].nodes, std::vector<std::string>({"relu", "linear"}));
  EXPECT_EQ(calls->calls[3].aten, std::vector<std::string>({"aten.relu", "aten.addmm"}));
  // Lines count from 1 in the source.
  const std::vector<absl::string_view> lines = absl::StrSplit(absl::string_view(kWrapper), '\n');
  EXPECT_TRUE(absl::StrContains(lines[calls->calls[1].line - 1], "aoti_torch_cpu_convolution("));
  EXPECT_TRUE(calls->kernel_profile);
  EXPECT_FALSE(calls->kernel_nodes);
}

TEST(WrapperCallsTest, WithoutKernelProfilingSaysSo) {
  std::string source = kWrapper;
  const std::string record = "    RECORD_FUNCTION(\"graph_0_cpp_fused_relu_1\", c10::ArrayRef<c10::IValue>({}));\n";
  source.erase(source.find(record), record.size());
  absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(source, "w.cpp");
  ASSERT_TRUE(calls.ok()) << calls.status();
  EXPECT_FALSE(calls->kernel_profile);
  EXPECT_EQ(calls->calls[2].record_name, "");
  EXPECT_EQ(calls->calls[0].record_name, "graph_0_cpp_fused_convolution_0");
}

TEST(WrapperCallsTest, RefusesWhatIsNotAWrapperInOneLine) {
  for (const std::string& garbled :
       {std::string(""), std::string("int main() {}\n"),
        std::string(kWrapper).substr(0, std::string(kWrapper).find("} // AOTInductorModel::run_impl"))}) {
    absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(garbled, "w.cpp");
    ASSERT_FALSE(calls.ok());
    EXPECT_EQ(calls.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(calls.status().message(), "w.cpp: not an AOTInductor wrapper source"))
        << calls.status();
    EXPECT_FALSE(absl::StrContains(calls.status().message(), "\n"));
  }
  absl::StatusOr<WrapperCalls> empty = ParseWrapperCalls(
      "void AOTInductorModel::run_impl(\n) {\n  output_handles[0] = x;\n} // AOTInductorModel::run_impl\n", "w.cpp");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "w.cpp: its AOTInductorModel::run_impl calls no kernel and no operator");
}

TEST(WrapperCallsTest, KernelRecordNamesEveryCallOfAKernel) {
  absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(kWrapper, "w.cpp");
  ASSERT_TRUE(calls.ok()) << calls.status();
  const std::string record = R"({"format": 1, "torch_version": "2.6.0", "kernels": {
      "cpp_fused_convolution_0": {"nodes": ["conv2d"], "aten": ["aten.convolution"]},
      "cpp_fused_relu_1": {"nodes": ["relu"], "aten": ["aten.relu"]},
      "cpp_fused_unused_9": {"nodes": ["x"], "aten": []}}})";
  ASSERT_TRUE(ApplyKernelRecord(record, "kernels.json", *calls).ok());
  EXPECT_EQ(calls->calls[0].nodes, std::vector<std::string>({"conv2d"}));
  EXPECT_EQ(calls->calls[2].nodes, std::vector<std::string>({"relu"}));
  EXPECT_EQ(calls->calls[4].nodes, std::vector<std::string>({"relu"}));
  EXPECT_EQ(calls->calls[1].nodes, std::vector<std::string>({"conv2d"}));  // the extern's, from its comment
  EXPECT_TRUE(calls->kernel_nodes);

  for (const std::string& bad : {std::string("[]"), std::string("{\"format\": 2, \"kernels\": {}}"),
                                 std::string("not json"),
                                 std::string(R"({"format": 1, "kernels": {"cpp_fused_relu_1": {"nodes": [1]}}})")}) {
    absl::Status refused = ApplyKernelRecord(bad, "kernels.json", *calls);
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_TRUE(absl::StartsWith(refused.message(), "kernels.json: ")) << refused;
  }
}

std::map<std::string, std::string> GoodPackage() {
  return {{"version", "1"},
          {"archive_format", "pt2"},
          {"data/aotinductor/model/abc.cpp", kWrapper},
          {"data/aotinductor/model/abc.so", "\x7f" "ELF..."},
          {"data/aotinductor/model/abc_metadata.json", R"({"AOTI_DEVICE_KEY": "cpu"})"},
          {"graphprof/program.pt2", "PK..."}};
}

absl::StatusOr<AotiPackage> Read(const std::map<std::string, std::string>& entries, const std::string& prefix = "") {
  return ReadAotiPackage(MemorySource(StoredZip(entries, prefix)), "m.pt2");
}

TEST(AotiPackageTest, ReadsThePackageLayout) {
  for (const std::string& prefix : {std::string(""), std::string("archive")}) {
    absl::StatusOr<AotiPackage> package = Read(GoodPackage(), prefix);
    ASSERT_TRUE(package.ok()) << package.status();
    EXPECT_EQ(package->model, "model");
    EXPECT_EQ(package->wrapper, "data/aotinductor/model/abc.cpp");
    EXPECT_EQ(package->library, "data/aotinductor/model/abc.so");
    EXPECT_EQ(package->files.size(), 3u);
    EXPECT_EQ(package->device, "cpu");
    EXPECT_TRUE(package->has_program);
  }
  std::map<std::string, std::string> bare = GoodPackage();
  bare.erase("graphprof/program.pt2");
  bare.erase("data/aotinductor/model/abc_metadata.json");
  absl::StatusOr<AotiPackage> package = Read(bare);
  ASSERT_TRUE(package.ok()) << package.status();
  EXPECT_FALSE(package->has_program);
  EXPECT_EQ(package->device, "cpu");
}

TEST(AotiPackageTest, RefusesHostilePackagesInOneLine) {
  auto with = [](std::function<void(std::map<std::string, std::string>&)> edit) {
    std::map<std::string, std::string> entries = GoodPackage();
    edit(entries);
    return StoredZip(entries);
  };
  const std::string good = StoredZip(GoodPackage());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {good.substr(0, good.size() / 2), "m.pt2: "},
      {"not a zip", "m.pt2: "},
      {with([](auto& e) { e.erase("data/aotinductor/model/abc.cpp"); e.erase("data/aotinductor/model/abc.so");
                          e.erase("data/aotinductor/model/abc_metadata.json"); }),
       "m.pt2: not an AOTInductor package (no compiled model under data/aotinductor/)"},
      {with([](auto& e) { e["data/aotinductor/second/x.so"] = "x"; }),
       "m.pt2: holds 2 compiled models (model, second); graphprof profiles packages of one model"},
      {with([](auto& e) { e.erase("data/aotinductor/model/abc.so"); }),
       "m.pt2: compiled model 'model' has no compiled library (no *.so under data/aotinductor/model/): not a "
       "complete AOTInductor package"},
      {with([](auto& e) { e.erase("data/aotinductor/model/abc.cpp"); }),
       "m.pt2: compiled model 'model' has no wrapper source (no *.cpp under data/aotinductor/model/): not a "
       "complete AOTInductor package"},
      {with([](auto& e) { e["data/aotinductor/model/def.so"] = "x"; }),
       "m.pt2: compiled model 'model' has 2 compiled libraries (data/aotinductor/model/abc.so, "
       "data/aotinductor/model/def.so); an AOTInductor package has one"},
      {with([](auto& e) { e["data/aotinductor/model/abc_metadata.json"] = "[1]"; }),
       "m.pt2: data/aotinductor/model/abc_metadata.json is not a JSON object"},
      {with([](auto& e) { e["data/aotinductor/model/abc_metadata.json"] = R"({"AOTI_DEVICE_KEY": "cuda"})"; }),
       "m.pt2: compiled for device 'cuda'; graphprof profiles AOTInductor packages compiled for the CPU"},
  };
  for (const auto& [bytes, message] : cases) {
    absl::StatusOr<AotiPackage> package = ReadAotiPackage(MemorySource(bytes), "m.pt2");
    ASSERT_FALSE(package.ok()) << message;
    EXPECT_EQ(package.status().code(), absl::StatusCode::kInvalidArgument) << package.status();
    EXPECT_TRUE(absl::StartsWith(package.status().message(), message)) << package.status();
    EXPECT_FALSE(absl::StrContains(package.status().message(), "\n")) << package.status();
  }
}

}  // namespace
}  // namespace graphprof
