#pragma once
// The few CUDA driver calls kbench makes itself (device discovery, events, synchronisation).
// The driver is loaded at run time (dlopen "libcuda.so.1") so one binary starts on machines
// without a GPU; when kbench was built without the CUDA toolkit, `available()` is false.
#include <string>

namespace kbench::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
};

// False with a reason when no usable driver/device is present.
bool available(std::string* why_not = nullptr);
int device_count();
std::string device_name(int index);
// CUDA version the driver supports as "major.minor" (e.g. "13.0"), or "" when unavailable.
std::string driver_version();
// The NVIDIA kernel driver's release (e.g. "580.159.04") from /proc, or "" when absent.
std::string kernel_driver_release();

// L2 cache size in bytes of device `index` (0 when unknown).
long long l2_cache_bytes(int index);
// Memory of device `index` in bytes (cuDeviceTotalMem; no context is created).
long long total_memory_bytes(int index);
// PCI bus id ("0000:19:00.0") of device `index`, to find the same GPU in NVML.
std::string pci_bus_id(int index);
// Whether kernels on device `index` may dereference pageable host memory (HMM or ATS): then any
// pointer a kernel casts from an integer can reach the process's heap.
bool pageable_memory_access(int index);

// Events, a blocking kernel and device-wide synchronisation on the primary context of one
// device, for the CUDA timer. Everything goes to the legacy default stream, which is torch's
// default current stream.
class EventPair {
 public:
  explicit EventPair(int device_index);
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void synchronize_device();
  // Queues a kernel that spins until release_blocker() (or `timeout_ns`), so that the start
  // event and the launches behind it reach the GPU together: launch latency leaves the sample.
  void launch_blocker(unsigned long long timeout_ns);
  void release_blocker();
  [[nodiscard]] bool blocker_timed_out() const;
  void record_start();
  void record_end();
  void wait_end();      // host blocks until the end event has completed
  double elapsed_ms();  // start -> end, after wait_end()

 private:
  void* start_ = nullptr;
  void* end_ = nullptr;
  void* blocker_ = nullptr;                  // CUfunction
  volatile unsigned int* host_flags_ = nullptr;  // [0] release, [1] timed out (host-mapped)
  unsigned long long device_flags_ = 0;
};

// A module of kbench's own kernels (a fatbin or PTX image) on the primary context of one device;
// its kernels run on the legacy default stream, as EventPair's do.
class KernelModule {
 public:
  KernelModule(int device_index, const void* image);
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;
  // `params`: pointers to each argument, as cuLaunchKernel takes them.
  void launch(const char* kernel, unsigned grid_x, unsigned block_x, void** params);
  void synchronize();  // the whole device: work queued on any stream of the context

 private:
  void make_current();
  void* context_ = nullptr;  // CUcontext
  void* module_ = nullptr;   // CUmodule
};

}  // namespace kbench::cuda
