#include "tools/zoo/layers.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/loader.h"

namespace graphprof::zoo {

WeightInit::WeightInit(uint64_t seed) : generator_(at::detail::createCPUGenerator(seed)) {}

at::Tensor WeightInit::Normal(at::IntArrayRef shape, double std) {
  return at::randn(shape, generator_, at::kFloat).mul_(std);
}

at::Tensor WeightInit::Uniform(at::IntArrayRef shape, double low, double high) {
  return at::rand(shape, generator_, at::kFloat).mul_(high - low).add_(low);
}

torch::jit::Module NewModule(absl::string_view type_name) {
  torch::jit::Module module{c10::QualifiedName(std::string(type_name))};
  module.register_attribute("training", c10::BoolType::get(), false);
  return module;
}

void AddParameter(torch::jit::Module& module, const std::string& name, at::Tensor value) {
  module.register_parameter(name, value.requires_grad_(true), /*is_buffer=*/false);
}

void Define(torch::jit::Module& module, absl::string_view source) {
  absl::Status status = DefineMethods(module, source);
  // Zoo sources are fixed strings: failing to compile is a bug in graphprof.
  TORCH_CHECK(status.ok(), status.ToString());
}

torch::jit::Module Conv2d(WeightInit& init, int64_t in, int64_t out, int64_t kernel,
                          int64_t stride, int64_t padding, bool bias) {
  torch::jit::Module m = NewModule("Conv2d");
  const double fan_out = static_cast<double>(out * kernel * kernel);
  AddParameter(m, "weight", init.Normal({out, in, kernel, kernel}, std::sqrt(2.0 / fan_out)));
  if (bias) {
    AddParameter(m, "bias", init.Uniform({out}, -0.1, 0.1));
  } else {
    m.register_attribute("bias", c10::OptionalType::create(c10::TensorType::get()), c10::IValue());
  }
  Define(m, absl::StrFormat(R"(
def forward(self, x):
    return torch.conv2d(x, self.weight, self.bias, [%d, %d], [%d, %d], [1, 1], 1)
)", stride, stride, padding, padding));
  return m;
}

torch::jit::Module BatchNorm2d(WeightInit& init, int64_t channels) {
  torch::jit::Module m = NewModule("BatchNorm2d");
  AddParameter(m, "weight", init.Uniform({channels}, 0.5, 1.5));
  AddParameter(m, "bias", init.Uniform({channels}, -0.2, 0.2));
  m.register_buffer("running_mean", init.Uniform({channels}, -0.1, 0.1));
  m.register_buffer("running_var", init.Uniform({channels}, 0.5, 1.5));
  m.register_buffer("num_batches_tracked", at::zeros({}, at::kLong));
  Define(m, R"(
def forward(self, x):
    return torch.batch_norm(x, self.weight, self.bias, self.running_mean, self.running_var, False, 0.1, 1e-05, True)
)");
  return m;
}

torch::jit::Module Linear(WeightInit& init, int64_t in, int64_t out, bool bias) {
  torch::jit::Module m = NewModule("Linear");
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  AddParameter(m, "weight", init.Uniform({out, in}, -bound, bound));
  if (bias) {
    AddParameter(m, "bias", init.Uniform({out}, -bound, bound));
  } else {
    m.register_attribute("bias", c10::OptionalType::create(c10::TensorType::get()), c10::IValue());
  }
  Define(m, R"(
def forward(self, x):
    return torch.linear(x, self.weight, self.bias)
)");
  return m;
}

torch::jit::Module LayerNorm(WeightInit& init, int64_t features) {
  torch::jit::Module m = NewModule("LayerNorm");
  AddParameter(m, "weight", init.Uniform({features}, 0.8, 1.2));
  AddParameter(m, "bias", init.Uniform({features}, -0.1, 0.1));
  Define(m, absl::StrFormat(R"(
def forward(self, x):
    return torch.layer_norm(x, [%d], self.weight, self.bias, 1e-05, True)
)", features));
  return m;
}

torch::jit::Module Lambda(absl::string_view type_name, absl::string_view expression) {
  torch::jit::Module m = NewModule(type_name);
  Define(m, absl::StrCat("\ndef forward(self, x):\n    return ", expression, "\n"));
  return m;
}

torch::jit::Module Sequential(std::vector<torch::jit::Module> children) {
  torch::jit::Module m = NewModule("Sequential");
  std::string source = "\ndef forward(self, x):\n";
  for (size_t i = 0; i < children.size(); ++i) {
    m.register_module(std::to_string(i), children[i]);
    absl::StrAppend(&source, "    x = getattr(self, \"", i, "\").forward(x)\n");
  }
  absl::StrAppend(&source, "    return x\n");
  Define(m, source);
  return m;
}

}  // namespace graphprof::zoo
