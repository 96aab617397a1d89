#pragma once
// One correctness trial's world: a reference model, pristine inputs and the reference outputs
// (held only by C++, in pageable host memory: no kernel of the candidate's CUDA context can
// reach them), and how trials are built from the problem file.
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace kbench {

enum class TrialKind {
  seed,              // get_inputs() under one of the correctness seeds
  alt_distribution,  // floating inputs redrawn from a second distribution (or get_inputs_alt())
  alt_shape,         // the problem rebuilt at its alt_sizes constants
  post_timing,       // a fresh seed, checked on the timed instance after timing
  timing,            // a timing input set: every warm-up and timed call checked (call_audit.hpp)
};
std::string to_string(TrialKind kind);

// The model and the inputs are Python objects of the process that built them; everything else
// is plain data that crosses to another process in a ReferenceWork (reference_work.hpp), where
// the model and inputs are rebuilt from (kind, seed, model_seed, constants) and checked against
// `input_digests`.
struct Trial {
  TrialKind kind = TrialKind::seed;
  int seed = 0;
  int model_seed = 0;                      // the reference model's seed (seed trial 0's for timing sets)
  pybind11::object model;
  pybind11::list inputs;                   // pristine; every call gets fresh clones
  std::vector<std::string> input_digests;  // SHA-256 per input, set when the trial is exported
  std::vector<at::Tensor> expected;        // reference outputs on the host, held only by C++
  // Per output: its largest |value|, taken on the device before the copy (trivial_output.hpp);
  // -1 where that says nothing (integer, empty or not finite).
  std::vector<double> expected_max_abs;
  std::string structure;
  std::vector<std::string> output_types;   // Python type of each output tensor
  std::vector<bool> reference_mutates;     // per input: the reference itself writes into it
  nlohmann::json constants = nlohmann::json::object();  // problem constants in force (alt_shape)
};

class TrialBuilder {
 public:
  TrialBuilder(pybind11::module_ torch, pybind11::object device, pybind11::object dtype,
               pybind11::module_ problem);

  // Init args and model under `seed`, created directly on the device.
  pybind11::object build_model(pybind11::handle cls, int seed) const;
  // get_inputs() under a seed derived from `seed`; floating tensors cast to the dtype.
  pybind11::list build_inputs(int seed) const;
  // The problem's get_inputs_alt() if it has one; else build_inputs(seed) with every floating
  // tensor redrawn: same signs (and zeros), |N(0,1)| magnitudes scaled to the original mean
  // magnitude, 1% of elements x10. Signs are kept so domains like x > 0 survive.
  pybind11::list build_alt_inputs(int seed) const;

  // Runs the reference on clones of `inputs` and keeps copies of its outputs in C++, on the host.
  // With `poison`, the device outputs and input clones are overwritten before they are freed
  // (stale memory).
  Trial run_reference(TrialKind kind, int seed, pybind11::object model, pybind11::list inputs,
                      bool poison) const;

  // Sets module constants of the problem file; returns their previous values (for restoring).
  nlohmann::json set_constants(const nlohmann::json& constants) const;

  // Copies of `inputs` on the device, wherever the pristine ones are (device or host).
  pybind11::tuple fresh_copies(const pybind11::list& inputs) const;

  // Moves a trial's pristine inputs (and, with `with_model`, its model) to pageable host memory:
  // what the memory plan does with trials it cannot keep on the device (docs/memory.md).
  void keep_on_host(Trial& trial, bool with_model) const;
  // A copy of `t` in pageable host memory (a CUDA tensor into pre-faulted pages: trial.cpp says why).
  static at::Tensor to_host(const at::Tensor& t);

  // Bytes of the tensors in `inputs`; of a model's parameters and buffers.
  static long long tensor_bytes(const pybind11::list& inputs);
  static long long weight_bytes(const pybind11::object& model);

 private:
  pybind11::object with_device(const pybind11::object& fn) const;
  // Seeds the CPU generator and the device's, as torch.manual_seed does, from C++: the Python
  // function and everything it calls are the candidate's to patch (a spy there learns each
  // fresh seed), the generators are not.
  void seed_generators(int seed) const;
  pybind11::module_ torch_;
  pybind11::object device_;
  pybind11::object dtype_;
  pybind11::module_ problem_;
};

}  // namespace kbench
