// A stand-in for libnvidia-ml.so.1 with NVML's C ABI, for nvml_test: two
// devices whose memory the test sets (FakeNvmlSet), and an initialisation
// that fails while FakeNvmlFailInit(code) is set.
#include <cstring>

namespace {

struct Memory {
  unsigned long long total, free, used;
};
struct Device {
  const char* bus_id;
  Memory memory;
};
Device devices[2] = {{"0000:3B:00.0", {0, 0, 0}}, {"0000:86:00.0", {0, 0, 0}}};
int init_error = 0;
int initialised = 0;

}  // namespace

extern "C" {

void FakeNvmlSet(int device, unsigned long long total, unsigned long long free, unsigned long long used) {
  devices[device].memory = {total, free, used};
}
void FakeNvmlFailInit(int code) { init_error = code; }
int FakeNvmlInitialised() { return initialised; }

int nvmlInit_v2() {
  if (init_error != 0) return init_error;
  ++initialised;
  return 0;
}
int nvmlShutdown() {
  --initialised;
  return 0;
}
const char* nvmlErrorString(int code) {
  switch (code) {
    case 2: return "Invalid Argument";
    case 6: return "Not Found";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}
int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = 2;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (index >= 2) return 2;
  *device = &devices[index];
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  for (Device& d : devices) {
    if (std::strcmp(d.bus_id, bus_id) == 0) {
      *device = &d;
      return 0;
    }
  }
  return 6;
}
int nvmlDeviceGetMemoryInfo(void* device, Memory* memory) {
  *memory = static_cast<Device*>(device)->memory;
  return 0;
}

}  // extern "C"
