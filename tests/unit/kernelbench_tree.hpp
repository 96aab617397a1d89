#pragma once
// A tiny KernelBench-shaped checkout written by the test (never KernelBench's own files):
// KernelBench/level{1,2,3}/<number>_<Name>.py, small CPU-sized problems in its format.
#include <string>

#include "temp_dir.hpp"

namespace kbench::test {

inline std::string kernelbench_problem(const std::string& forward, const std::string& inputs,
                                       const std::string& init = "") {
  return "import torch\nimport torch.nn as nn\n\n"
         "class Model(nn.Module):\n"
         "    def __init__(self" + std::string(init.empty() ? "" : ", *args") + "):\n"
         "        super().__init__()\n"
         "    def forward(self, x):\n"
         "        return " + forward + "\n\n"
         "batch_size = 8\ndim = 16\n\n"
         "def get_inputs():\n    return [" + inputs + "]\n\n"
         "def get_init_inputs():\n    return [" + init + "]\n";
}

// Writes the tree under `dir` (the checkout root: dir/KernelBench/levelN/...) and a README
// and a src/kernelbench marker as a real clone has.
inline void write_kernelbench_tree(const TempDir& dir, const std::string& root = "kb") {
  const std::string x = "torch.randn(batch_size, dim)";
  dir.write(root + "/README.md", "# KernelBench (test stand-in)\n");
  dir.write(root + "/src/kernelbench/__init__.py", "");
  dir.write(root + "/KernelBench/level1/19_ReLU.py", kernelbench_problem("torch.relu(x)", x));
  dir.write(root + "/KernelBench/level1/23_Softmax.py", kernelbench_problem("torch.softmax(x, dim=1)", x));
  dir.write(root + "/KernelBench/level1/2_Standard_matrix_multiplication_.py",
            kernelbench_problem("x @ x.T", x));
  dir.write(root + "/KernelBench/level1/42_Max_Pooling_2D.py",
            kernelbench_problem("torch.nn.functional.max_pool1d(x.unsqueeze(0), 2)[0]", x));
  dir.write(root + "/KernelBench/level1/__init__.py", "");  // not a problem: skipped
  dir.write(root + "/KernelBench/level2/12_Gemm_Multiply_LeakyReLU.py",
            kernelbench_problem("torch.nn.functional.leaky_relu((x @ x.T) * 2.0)", x));
  dir.write(root + "/KernelBench/level2/3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU.py",
            kernelbench_problem("torch.nn.functional.gelu(x.sum(dim=1))", x));
  dir.write(root + "/KernelBench/level3/1_MLP.py", kernelbench_problem("torch.tanh(x) * 0.5", x));
}

}  // namespace kbench::test
