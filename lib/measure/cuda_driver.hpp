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

// Opaque event pair timer over the primary context of one device (used by the CUDA timer).
class EventPair {
 public:
  explicit EventPair(int device_index);
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void synchronize_device();
  void record_start();  // on the legacy default stream
  void record_end();
  double elapsed_ms();  // waits for the end event

 private:
  void* start_ = nullptr;
  void* end_ = nullptr;
};

}  // namespace kbench::cuda
