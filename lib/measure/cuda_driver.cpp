#include "measure/cuda_driver.hpp"

#include <fmt/format.h>

#include <fstream>
#include <regex>

#include "core/error.hpp"

#ifdef KBENCH_WITH_CUDA
#include <cuda.h>
#include <dlfcn.h>

#include "core/dynamic_symbol.hpp"
#endif

namespace kbench::cuda {

std::string kernel_driver_release() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  std::getline(in, line);
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Release Build ..."
  std::smatch match;
  static const std::regex kRelease(R"(Kernel Module\s+([0-9][0-9.]*))");
  return std::regex_search(line, match, kRelease) ? match[1].str() : "";
}

#ifdef KBENCH_WITH_CUDA
namespace {

// Function pointers resolved from libcuda.so.1; names are the versioned ABI symbols that the
// toolkit's macros map the plain names to.
struct Driver {
  bool loaded = false;
  std::string error;
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  decltype(&::cuEventElapsedTime) event_elapsed = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceGetPCIBusId) device_get_pci_bus_id = nullptr;
  decltype(&::cuDeviceTotalMem) device_total_mem = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuMemHostAlloc) mem_host_alloc = nullptr;
  decltype(&::cuMemHostGetDevicePointer) mem_host_get_device_pointer = nullptr;
};

// Spins until *flag != 0 or `timeout_ns` of %globaltimer have passed; then sets *timed_out.
// PTX so the driver JIT-compiles it for whatever GPU is present; no CUDA runtime needed.
constexpr const char* kBlockerPtx = R"(
.version 7.0
.target sm_50
.address_size 64
.visible .entry kbench_blocker(.param .u64 flag_ptr, .param .u64 timeout_ns)
{
  .reg .pred done, late;
  .reg .u64 flag, limit, t0, t;
  .reg .u32 v;
  ld.param.u64 flag, [flag_ptr];
  ld.param.u64 limit, [timeout_ns];
  mov.u64 t0, %globaltimer;
SPIN:
  ld.volatile.global.u32 v, [flag];
  setp.ne.u32 done, v, 0;
  @done bra EXIT;
  mov.u64 t, %globaltimer;
  sub.u64 t, t, t0;
  setp.gt.u64 late, t, limit;
  @!late bra SPIN;
  mov.u32 v, 1;
  st.volatile.global.u32 [flag+4], v;
EXIT:
  ret;
}
)";

Driver load_driver() {
  Driver d;
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    d.error = "the CUDA driver (libcuda.so.1) is not installed";
    return d;
  }
  bool ok = resolve_symbol(library, d.init, "cuInit") &&
            resolve_symbol(library, d.driver_get_version, "cuDriverGetVersion") &&
            resolve_symbol(library, d.device_get_count, "cuDeviceGetCount") &&
            resolve_symbol(library, d.device_get, "cuDeviceGet") &&
            resolve_symbol(library, d.device_get_name, "cuDeviceGetName") &&
            resolve_symbol(library, d.primary_ctx_retain, "cuDevicePrimaryCtxRetain") &&
            resolve_symbol(library, d.ctx_set_current, "cuCtxSetCurrent") &&
            resolve_symbol(library, d.ctx_synchronize, "cuCtxSynchronize") &&
            resolve_symbol(library, d.event_create, "cuEventCreate") &&
            resolve_symbol(library, d.event_destroy, "cuEventDestroy_v2") &&
            resolve_symbol(library, d.event_record, "cuEventRecord") &&
            resolve_symbol(library, d.event_synchronize, "cuEventSynchronize") &&
            resolve_symbol(library, d.event_elapsed, "cuEventElapsedTime_v2", "cuEventElapsedTime") &&
            resolve_symbol(library, d.device_get_attribute, "cuDeviceGetAttribute") &&
            resolve_symbol(library, d.device_get_pci_bus_id, "cuDeviceGetPCIBusId") &&
            resolve_symbol(library, d.device_total_mem, "cuDeviceTotalMem_v2") &&
            resolve_symbol(library, d.module_load_data, "cuModuleLoadData") &&
            resolve_symbol(library, d.module_get_function, "cuModuleGetFunction") &&
            resolve_symbol(library, d.launch_kernel, "cuLaunchKernel") &&
            resolve_symbol(library, d.mem_host_alloc, "cuMemHostAlloc") &&
            resolve_symbol(library, d.mem_host_get_device_pointer, "cuMemHostGetDevicePointer_v2");
  if (!ok) {
    d.error = "the CUDA driver is too old (missing symbols)";
    return d;
  }
  if (const CUresult rc = d.init(0); rc != CUDA_SUCCESS) {
    d.error = fmt::format("cuInit failed with CUDA error {}", int(rc));
    return d;
  }
  d.loaded = true;
  return d;
}

const Driver& driver() {
  static const Driver instance = load_driver();
  return instance;
}

void check(CUresult rc, const char* what) {
  if (rc != CUDA_SUCCESS) throw EnvironmentError(fmt::format("{} failed: CUDA error {}", what, int(rc)));
}

const Driver& require_driver() {
  const Driver& d = driver();
  if (!d.loaded) throw EnvironmentError("CUDA is unavailable: " + d.error);
  return d;
}

CUdevice device_handle(int index) {
  CUdevice device = 0;
  check(require_driver().device_get(&device, index), "cuDeviceGet");
  return device;
}

}  // namespace

bool available(std::string* why_not) {
  const Driver& d = driver();
  if (!d.loaded) {
    if (why_not) *why_not = d.error;
    return false;
  }
  if (device_count() == 0) {
    if (why_not) *why_not = "the CUDA driver reports no devices";
    return false;
  }
  return true;
}

int device_count() {
  const Driver& d = require_driver();
  int count = 0;
  if (d.device_get_count(&count) != CUDA_SUCCESS) return 0;
  return count;
}

std::string device_name(int index) {
  char name[256] = {};
  check(driver().device_get_name(name, sizeof(name), device_handle(index)), "cuDeviceGetName");
  return name;
}

std::string driver_version() {
  const Driver& d = driver();
  if (!d.loaded) return "";
  int version = 0;
  if (d.driver_get_version(&version) != CUDA_SUCCESS) return "";
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

long long l2_cache_bytes(int index) {
  int bytes = 0;
  check(driver().device_get_attribute(&bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_handle(index)),
        "cuDeviceGetAttribute");
  return bytes;
}

long long total_memory_bytes(int index) {
  std::size_t bytes = 0;
  check(driver().device_total_mem(&bytes, device_handle(index)), "cuDeviceTotalMem");
  return static_cast<long long>(bytes);
}

std::string pci_bus_id(int index) {
  char id[64] = {};
  check(driver().device_get_pci_bus_id(id, sizeof(id), device_handle(index)), "cuDeviceGetPCIBusId");
  return id;
}

bool pageable_memory_access(int index) {
  int reaches = 0;
  check(driver().device_get_attribute(&reaches, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device_handle(index)),
        "cuDeviceGetAttribute");
  return reaches != 0;
}

EventPair::EventPair(int device_index) {
  const CUdevice device = device_handle(device_index);
  const Driver& d = driver();
  CUcontext context = nullptr;
  // The primary context is the one the CUDA runtime (and so torch) uses.
  check(d.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
  check(d.ctx_set_current(context), "cuCtxSetCurrent");
  check(d.event_create(reinterpret_cast<CUevent*>(&start_), CU_EVENT_DEFAULT), "cuEventCreate");
  check(d.event_create(reinterpret_cast<CUevent*>(&end_), CU_EVENT_DEFAULT), "cuEventCreate");
  CUmodule module = nullptr;
  check(d.module_load_data(&module, kBlockerPtx), "cuModuleLoadData(blocker)");
  check(d.module_get_function(reinterpret_cast<CUfunction*>(&blocker_), module, "kbench_blocker"),
        "cuModuleGetFunction(blocker)");
  void* host = nullptr;
  check(d.mem_host_alloc(&host, 16, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
        "cuMemHostAlloc");
  host_flags_ = static_cast<volatile unsigned int*>(host);
  CUdeviceptr device_pointer = 0;
  check(d.mem_host_get_device_pointer(&device_pointer, host, 0), "cuMemHostGetDevicePointer");
  device_flags_ = device_pointer;
}

EventPair::~EventPair() {
  const Driver& d = driver();
  if (start_) d.event_destroy(static_cast<CUevent>(start_));
  if (end_) d.event_destroy(static_cast<CUevent>(end_));
}

void EventPair::synchronize_device() { check(driver().ctx_synchronize(), "cuCtxSynchronize"); }

void EventPair::launch_blocker(unsigned long long timeout_ns) {
  host_flags_[0] = 0;
  host_flags_[1] = 0;
  unsigned long long flag = device_flags_;
  void* params[] = {&flag, &timeout_ns};
  check(driver().launch_kernel(static_cast<CUfunction>(blocker_), 1, 1, 1, 1, 1, 1, 0, nullptr,
                               params, nullptr),
        "cuLaunchKernel(blocker)");
}

void EventPair::release_blocker() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  host_flags_[0] = 1;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

bool EventPair::blocker_timed_out() const { return host_flags_[1] != 0; }

void EventPair::record_start() {
  check(driver().event_record(static_cast<CUevent>(start_), nullptr), "cuEventRecord");
}
void EventPair::record_end() {
  check(driver().event_record(static_cast<CUevent>(end_), nullptr), "cuEventRecord");
}
void EventPair::wait_end() {
  check(driver().event_synchronize(static_cast<CUevent>(end_)), "cuEventSynchronize");
}
double EventPair::elapsed_ms() {
  float ms = 0;
  check(driver().event_elapsed(&ms, static_cast<CUevent>(start_), static_cast<CUevent>(end_)),
        "cuEventElapsedTime");
  return ms;
}

KernelModule::KernelModule(int device_index, const void* image) {
  const Driver& d = require_driver();
  check(d.primary_ctx_retain(reinterpret_cast<CUcontext*>(&context_), device_handle(device_index)),
        "cuDevicePrimaryCtxRetain");
  make_current();
  check(d.module_load_data(reinterpret_cast<CUmodule*>(&module_), image), "cuModuleLoadData");
}

void KernelModule::make_current() { check(driver().ctx_set_current(static_cast<CUcontext>(context_)), "cuCtxSetCurrent"); }

void KernelModule::launch(const char* kernel, unsigned grid_x, unsigned block_x, void** params) {
  make_current();
  CUfunction function = nullptr;
  check(driver().module_get_function(&function, static_cast<CUmodule>(module_), kernel), "cuModuleGetFunction");
  check(driver().launch_kernel(function, grid_x, 1, 1, block_x, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
}

void KernelModule::synchronize() {
  make_current();
  check(driver().ctx_synchronize(), "cuCtxSynchronize");
}

#else  // built without the CUDA toolkit

namespace {
const char* kNoCuda = "kbench was built without the CUDA toolkit";
}
bool available(std::string* why_not) {
  if (why_not) *why_not = kNoCuda;
  return false;
}
int device_count() { return 0; }
std::string device_name(int) { throw EnvironmentError(kNoCuda); }
std::string driver_version() { return ""; }
long long l2_cache_bytes(int) { return 0; }
long long total_memory_bytes(int) { return 0; }
std::string pci_bus_id(int) { return ""; }
bool pageable_memory_access(int) { return false; }
EventPair::EventPair(int) { throw EnvironmentError(kNoCuda); }
EventPair::~EventPair() = default;
void EventPair::synchronize_device() {}
void EventPair::launch_blocker(unsigned long long) {}
void EventPair::release_blocker() {}
bool EventPair::blocker_timed_out() const { return false; }
void EventPair::record_start() {}
void EventPair::record_end() {}
void EventPair::wait_end() {}
double EventPair::elapsed_ms() { return 0; }
KernelModule::KernelModule(int, const void*) { throw EnvironmentError(kNoCuda); }
void KernelModule::launch(const char*, unsigned, unsigned, void**) {}
void KernelModule::synchronize() {}
void KernelModule::make_current() {}

#endif

}  // namespace kbench::cuda
