// Which profiled kernels are the candidate's own (lib/integrity/kernel_attribution, elf_symbols):
// recorded torch-profiler kernel lists of honest and hostile CUDA/Triton candidates, and the
// kernel names nvcc leaves in an extension's symbol table. Pure functions: no GPU needed.
#include <string>
#include <vector>

#include "catch.hpp"
#include "temp_dir.hpp"
#include "integrity/elf_symbols.hpp"
#include "integrity/kernel_attribution.hpp"

using namespace kbench;

// A stub symbol like nvcc's for `__global__ void probe_kernel(float*, int)`, in this binary's
// own symbol table, so reading a real ELF file is tested without nvcc.
extern "C" __attribute__((used, noinline)) void kbench_probe_stub() __asm__("_Z33__device_stub__Z12probe_kernelPfiPfi");
extern "C" __attribute__((used, noinline)) void kbench_probe_stub() {}

namespace {

// `nm` of an extension built by nvcc 13.0 -O3 from: a plain kernel, a template kernel used with
// float and double, a kernel in an anonymous namespace, a static kernel, an extern "C" kernel,
// and host code (the launch wrapper, pybind11, torch templates).
const std::vector<std::string> kNvccSymbols = {
    "_Z11axpy_kernelPKfPffl",
    "_Z11axpy_kernelPKfPffl.cold",
    "_Z2tkIdEvPT_i",
    "_Z2tkIfEvPT_i",
    "_Z36__device_stub__Z11axpy_kernelPKfPfflPKfPffl",
    "_Z65__device_stub__ZN36_GLOBAL__N__367d1621_4_k_cu_417d7c6f6anon_kEPfPf",
    "_ZGVZL27__device_stub__Z2tkIdEvPT_iPdiE5__tmp",
    "_ZZL27__device_stub__Z2tkIfEvPT_iPfiE8__handle",
    "_ZZL27__device_stub__Z8static_kPfPfE5__tmp",
    "_ZL8static_kPf",
    "_ZN36_GLOBAL__N__367d1621_4_k_cu_417d7c6f6anon_kEPf",
    "_Z34__device_stub__Z14plain_c_kernelPfPf",
    "plain_c_kernel",
    "_Z6launchPfS_l",
    "_ZN8pybind1112cpp_function10dispatcherEP7_objectS2_S2_",
    "_ZNK2at10TensorBase8data_ptrIfEEPT_v",
    "PyInit_kb_axpy",
};

}  // namespace

TEST_CASE("nvcc's stub symbols give every __global__ kernel, demangled as the profiler shows it") {
  const auto kernels = cuda_kernels_in_symbols(kNvccSymbols);
  const std::set<std::string> expected{
      "axpy_kernel(float const*, float*, float, long)",
      "void tk<float>(float*, int)",
      "void tk<double>(double*, int)",
      "(anonymous namespace)::anon_k(float*)",
      "static_k(float*)",
      "plain_c_kernel(float*)",
      "plain_c_kernel",  // extern "C": the device (and profiler) name is the plain one
  };
  CHECK(kernels == expected);
  // Host functions are not kernels, even when they are the extension's own.
  CHECK(cuda_kernels_in_symbols({"_Z6launchPfS_l", "PyInit_kb_axpy", "__device_stub_"}).empty());
}

TEST_CASE("a real ELF file's symbol table is read: this test binary's stub-like symbol") {
  const auto names = elf_symbol_names("/proc/self/exe");
  CHECK(std::find(names.begin(), names.end(), "_Z33__device_stub__Z12probe_kernelPfiPfi") != names.end());
  CHECK(cuda_kernels_in_symbols(names).count("probe_kernel(float*, int)") == 1);
  test::TempDir dir;
  CHECK_THROWS_AS(elf_symbol_names(dir.write("not_elf.so", "#!/bin/sh\n")), std::runtime_error);
  CHECK_THROWS_AS(elf_symbol_names(dir.path() / "missing.so"), std::runtime_error);
  // A truncated ELF header is refused, not read past its end.
  CHECK_THROWS_AS(elf_symbol_names(dir.write("short.so", "\x7f" "ELF\x02\x01")), std::runtime_error);
}

TEST_CASE("honest CUDA candidate: its kernels count, torch's fill and cuBLAS called from C++ do not") {
  OwnKernels own;
  own.cuda = cuda_kernels_in_symbols(kNvccSymbols);
  own.triton = {"axpy_cuda"};  // the extension's Python function: never a kernel name
  const std::vector<ProfiledKernel> profiled = {
      {"axpy_kernel(float const*, float*, float, long)", 80.0},
      {"void tk<float>(float*, int)", 40.0},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
       "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
       10.0},
      {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
       "5x_cublas",
       70.0},
      {"idle", 0.0},
  };
  const auto share = attribute_kernel_time(profiled, own);
  CHECK(share.total_us == Approx(200.0));
  CHECK(share.custom_us == Approx(120.0));
  CHECK(share.share == Approx(0.6));
  REQUIRE(share.kernels.size() == 4);
  CHECK(share.kernels[0]["name"] == "axpy_kernel(float const*, float*, float, long)");  // largest first
  CHECK(share.kernels[0]["custom"] == true);
  CHECK(share.kernels[1]["custom"] == false);  // cuBLAS
}

TEST_CASE("names match exactly, not as text: a kernel named like part of torch's gets nothing") {
  // Substring matching (the old rule) counted torch's add kernel for a Triton kernel `add`.
  OwnKernels own;
  own.triton = {"add", "_fused_gelu"};
  const std::vector<ProfiledKernel> profiled = {
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
       90.0},
      {"_fused_gelu", 10.0},
  };
  const auto share = attribute_kernel_time(profiled, own);
  CHECK(share.custom_us == Approx(10.0));
  CHECK(share.share == Approx(0.1));
  CHECK_FALSE(is_own_kernel("add_kernel", own));
  CHECK(is_own_kernel("add", own));
}

TEST_CASE("token kernel: a copy kernel of the candidate's while torch's GEMM does the work") {
  OwnKernels own;
  own.cuda = {"copy_kernel(float const*, float*, long)"};
  const auto share = attribute_kernel_time(
      {{"copy_kernel(float const*, float*, long)", 3.0},
       {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>(cutlass_80_simt_sgemm_128x128_8x4_nn_"
        "align1::Params)",
        97.0}},
      own);
  CHECK(share.share == Approx(0.03));
  CHECK(attribute_kernel_time({}, own).total_us == 0);
  CHECK(attribute_kernel_time({}, own).share == 0);
}

TEST_CASE("library calls through torch's GEMM operators are delegated: cuBLAS Q K^T + own softmax") {
  // smoke_06_attention_scores__cublas_then_softmax on the H200 (head dim 16): torch.matmul's
  // cuBLAS kernel 53%, the candidate's Triton softmax 47%. Delegated time leaves the share's
  // denominator, so the own kernel does all of the rest.
  OwnKernels own;
  own.triton = {"_scaled_softmax_kernel"};
  const auto share = attribute_kernel_time(
      {{"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_cublas", 53.0, true},
       {"_scaled_softmax_kernel", 47.0, false}},
      own);
  CHECK(share.total_us == Approx(100.0));
  CHECK(share.delegated_us == Approx(53.0));
  CHECK(share.share == Approx(1.0));
  CHECK(share.kernels[0]["delegated"] == true);
  CHECK(share.kernels[1]["custom"] == true);
}

TEST_CASE("delegation does not excuse torch's other kernels, nor cuBLAS called outside torch's operators") {
  OwnKernels own;
  own.cuda = {"touch_kernel(float*)"};
  // tests/hostile/cuda/cublas_inside_extension.py: cublasSgemm straight from the extension is not
  // inside an aten operator (not delegated), and torch's eye/fill/clamp kernels count too.
  const auto direct = attribute_kernel_time(
      {{"sgemm_largek_lds64", 60.0, false}, {"void at::native::elementwise_kernel<eye>", 30.0, false},
       {"touch_kernel(float*)", 2.0, false}},
      own);
  CHECK(direct.delegated_us == 0);
  CHECK(direct.share == Approx(2.0 / 92.0));
  // A token kernel beside torch's GEMM (delegated) and torch's elementwise ops (not): the
  // elementwise ops are what the share is measured against.
  const auto token = attribute_kernel_time(
      {{"sm90_xmma_gemm", 500.0, true}, {"void at::native::vectorized_elementwise_kernel<gelu>", 40.0, false},
       {"touch_kernel(float*)", 2.0, false}},
      own);
  CHECK(token.share == Approx(2.0 / 42.0));
  // A kernel of the candidate's own is never delegated, whatever the profile says.
  const auto own_inside = attribute_kernel_time({{"touch_kernel(float*)", 10.0, true}, {"x", 10.0, false}}, own);
  CHECK(own_inside.delegated_us == 0);
  CHECK(own_inside.share == Approx(0.5));
  // Everything delegated and nothing else ran: no share to speak of.
  CHECK(attribute_kernel_time({{"sm90_xmma_gemm", 500.0, true}}, own).share == 0);
}

TEST_CASE("demangle: mangled names as the profiler prints them; other names unchanged") {
  CHECK(demangle("_Z11axpy_kernelPKfS0_Pffl") == "axpy_kernel(float const*, float const*, float*, float, long)");
  CHECK(demangle("_layernorm_kernel") == "_layernorm_kernel");
  CHECK(demangle("") == "");
}
