// ResNet-18 with torchvision's module names and parameter shapes.
#include "absl/strings/str_cat.h"
#include "tools/zoo/layers.h"
#include "tools/zoo/zoo.h"

namespace graphprof::zoo {
namespace {

torch::jit::Module BasicBlock(WeightInit& init, int64_t in, int64_t out, int64_t stride) {
  torch::jit::Module m = NewModule("BasicBlock");
  m.register_module("conv1", Conv2d(init, in, out, 3, stride, 1, /*bias=*/false));
  m.register_module("bn1", BatchNorm2d(init, out));
  m.register_module("relu", Lambda("ReLU", "torch.relu_(x)"));
  m.register_module("conv2", Conv2d(init, out, out, 3, 1, 1, /*bias=*/false));
  m.register_module("bn2", BatchNorm2d(init, out));
  const bool downsample = stride != 1 || in != out;
  if (downsample) {
    m.register_module("downsample", Sequential({Conv2d(init, in, out, 1, stride, 0, false),
                                                BatchNorm2d(init, out)}));
  }
  Define(m, absl::StrCat(R"(
def forward(self, x):
    identity = x
    out = self.conv1.forward(x)
    out = self.bn1.forward(out)
    out = self.relu.forward(out)
    out = self.conv2.forward(out)
    out = self.bn2.forward(out)
)", downsample ? "    identity = self.downsample.forward(x)\n" : "", R"(
    out += identity
    out = self.relu.forward(out)
    return out
)"));
  return m;
}

torch::jit::Module Layer(WeightInit& init, int64_t in, int64_t out, int64_t stride) {
  return Sequential({BasicBlock(init, in, out, stride), BasicBlock(init, out, out, 1)});
}

}  // namespace

ZooModel ResNet18(uint64_t seed) {
  WeightInit init(seed);
  torch::jit::Module m = NewModule("ResNet");
  m.register_module("conv1", Conv2d(init, 3, 64, 7, 2, 3, /*bias=*/false));
  m.register_module("bn1", BatchNorm2d(init, 64));
  m.register_module("relu", Lambda("ReLU", "torch.relu_(x)"));
  m.register_module("maxpool", Lambda("MaxPool2d", "torch.max_pool2d(x, [3, 3], [2, 2], [1, 1], [1, 1], False)"));
  m.register_module("layer1", Layer(init, 64, 64, 1));
  m.register_module("layer2", Layer(init, 64, 128, 2));
  m.register_module("layer3", Layer(init, 128, 256, 2));
  m.register_module("layer4", Layer(init, 256, 512, 2));
  m.register_module("avgpool", Lambda("AdaptiveAvgPool2d", "torch.adaptive_avg_pool2d(x, [1, 1])"));
  m.register_module("fc", Linear(init, 512, 1000));
  Define(m, R"(
def forward(self, x):
    x = self.conv1.forward(x)
    x = self.bn1.forward(x)
    x = self.relu.forward(x)
    x = self.maxpool.forward(x)
    x = self.layer1.forward(x)
    x = self.layer2.forward(x)
    x = self.layer3.forward(x)
    x = self.layer4.forward(x)
    x = self.avgpool.forward(x)
    x = torch.flatten(x, 1)
    x = self.fc.forward(x)
    return x
)");
  ZooModel model{"resnet18", "torchvision ResNet-18 layout (11.7M parameters)", m, {}};
  model.inputs = {InputSpec{InputSpec::Kind::kTensor, {1, 3, 224, 224}, c10::ScalarType::Float}};
  return model;
}

}  // namespace graphprof::zoo
