// lib/device: parsing and printing device names, resolution of --device, per-GPU lock names.
#include <cstdlib>

#include "catch.hpp"
#include "core/error.hpp"
#include "device/device.hpp"
#include "device/device_resolution.hpp"
#include "device/gpu_lock_name.hpp"

using namespace kbench;

TEST_CASE("device names parse and print back") {
  for (const char* name : {"cpu", "cuda", "cuda:0", "cuda:7", "cuda:12"}) {
    const auto device = parse_device(name);
    REQUIRE(device);
    CHECK(to_string(*device) == name);
  }
  CHECK(*parse_device("cpu") == cpu_device());
  CHECK(*parse_device("cuda") == every_cuda_device());
  CHECK(*parse_device("cuda:3") == cuda_device(3));
  CHECK(parse_device("cuda:3")->is_cuda());
  CHECK(parse_device("cpu")->is_cpu());
  CHECK(cuda_device(1) != cuda_device(2));
  CHECK(cuda_device(0) != every_cuda_device());
  // Leading zeros read as the number (as the regex of earlier versions accepted them).
  CHECK(*parse_device("cuda:01") == cuda_device(1));
}

TEST_CASE("malformed device names are refused") {
  for (const char* name : {"", "gpu", "auto", "CUDA", "cuda:", "cuda:x", "cuda:-1", "cuda:+1",
                           "cuda:1x", "cuda:1:2", "cpu:0", "cuda :1", " cpu", "cuda:99999999999"})
    CHECK_FALSE(parse_device(name).has_value());
}

TEST_CASE("device kinds name the per-kind blocks") {
  CHECK(device_kind_names() == std::vector<std::string>{"cpu", "cuda"});
  CHECK(device_kind_from_string("cuda") == DeviceKind::cuda);
  CHECK(device_kind_from_string("cpu") == DeviceKind::cpu);
  CHECK_FALSE(device_kind_from_string("cuda:0"));
  CHECK(to_string(DeviceKind::cuda) == "cuda");
}

TEST_CASE("--device resolution") {
  CHECK(resolve_devices("cpu") == std::vector<Device>{cpu_device()});
  CHECK_THROWS_AS(resolve_devices("gpu"), InputError);
  CHECK_THROWS_AS(resolve_devices("cuda:x"), InputError);
  try {
    resolve_devices("cuda:zero");
    FAIL("accepted cuda:zero");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "--device 'cuda:zero' is not one of auto, cpu, cuda, cuda:N");
  }
  const auto automatic = resolve_devices("auto");
  REQUIRE(!automatic.empty());
  if (automatic.front().is_cpu()) {
    CHECK(automatic.size() == 1);
    // No usable GPU here: asking for one is an environment problem (exit 3), not bad input.
    CHECK_THROWS_AS(resolve_devices("cuda:0"), EnvironmentError);
  } else {
    for (std::size_t i = 0; i < automatic.size(); ++i) CHECK(automatic[i] == cuda_device(int(i)));
  }
  CHECK(run_device({cpu_device()}) == cpu_device());
  CHECK(run_device({cuda_device(2)}) == cuda_device(2));
  CHECK(run_device({cuda_device(0), cuda_device(1)}) == every_cuda_device());
}

TEST_CASE("GPU lock files are named after the physical device") {
  const char* old = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string saved = old ? old : "";
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  CHECK(gpu_lock_file("/locks", cuda_device(1)) == "/locks/kbench-gpu-1.lock");
  ::setenv("CUDA_VISIBLE_DEVICES", "3,GPU-ab:cd", 1);
  CHECK(gpu_lock_file("/locks", cuda_device(0)) == "/locks/kbench-gpu-3.lock");
  CHECK(gpu_lock_file("/locks", cuda_device(1)) == "/locks/kbench-gpu-GPU-ab_cd.lock");
  CHECK(gpu_lock_file("/locks", cuda_device(5)) == "/locks/kbench-gpu-5.lock");
  CHECK_THROWS_AS(gpu_lock_file("/locks", cpu_device()), std::logic_error);
  CHECK_THROWS_AS(gpu_lock_file("/locks", every_cuda_device()), std::logic_error);
  if (old) ::setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
  else ::unsetenv("CUDA_VISIBLE_DEVICES");
}
