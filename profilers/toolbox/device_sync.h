// SynchronizeDevice: wait until the current CUDA device has finished all
// work queued on it, when there is one (torch.cuda.synchronize() in
// torch_geometric.profile's timeit). Host timers around device work need it:
// kernels launch asynchronously, so without it a timer measures launches.
//
// Under --config=cuda it calls the CUDA runtime (cudaDeviceSynchronize), which
// also covers kernels launched outside LibTorch; otherwise, with a CUDA
// LibTorch, torch::cuda::synchronize(). Without a CUDA device (or with
// Debian's CPU LibTorch and a default build) it does nothing and returns
// false. Whether a device is there is probed once per process.
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_DEVICE_SYNC_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_DEVICE_SYNC_H_

namespace graphprof {

// True when it synchronised a device.
bool SynchronizeDevice();

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_DEVICE_SYNC_H_
