// The `kbench._kbench` extension: the Evaluator (lib/service) for Python. Deliberately narrow:
// evaluations, lookups and stats cross as the JSON the C++ side writes (service/evaluation.hpp,
// model/codec.hpp), so Python reads the one codec's form instead of a second serialiser; the
// Python package (kbench/__init__.py) builds its Result from it. Every call that can wait
// releases the GIL, and evaluation happens in sandboxed kbench-worker processes, never here.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "core/crash_backtrace.hpp"
#include "core/error.hpp"
#include "exec/worker_process.hpp"
#include "service/evaluator.hpp"

namespace py = pybind11;
using namespace kbench;

namespace {

// One accepted request: waits without the GIL; its JSON once ready.
struct PyHandle {
  Evaluator::Handle future;
  bool wait(std::optional<double> timeout_s) const {
    py::gil_scoped_release release;
    if (!timeout_s) {
      future.wait();
      return true;
    }
    return future.wait_for(std::chrono::duration<double>(*timeout_s)) == std::future_status::ready;
  }
  bool done() const { return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
  std::string json() const {
    const Evaluation* evaluation = nullptr;
    {
      py::gil_scoped_release release;
      evaluation = &future.get();  // rethrows the service's failure (not a candidate's)
    }
    return evaluation_json(*evaluation).dump();
  }
};

// An Evaluator dropped without close() drains in its destructor, which waits for the session's
// thread; that thread takes the GIL for callbacks and log lines, so the GIL is released first.
struct DeleteWithoutGil {
  void operator()(Evaluator* evaluator) const {
    py::gil_scoped_release release;
    delete evaluator;
  }
};
using EvaluatorHolder = std::unique_ptr<Evaluator, DeleteWithoutGil>;

// Python exception types, one per refusal reason, created in PYBIND11_MODULE and kept for the
// process's life (never released: that would run after the interpreter is gone).
PyObject* refusal_types[5] = {};

}  // namespace

PYBIND11_MODULE(_kbench, m) {
  m.doc() = "kbench's in-process Evaluator (C++ core); use the `kbench` package, not this module";
  // Set KBENCH_NATIVE_BACKTRACE=1 for the native stack of a crash in the core (after faulthandler's).
  if (const char* on = std::getenv("KBENCH_NATIVE_BACKTRACE"); on && std::string(on) == "1") install_crash_backtrace();

  static py::exception<EvaluatorRefusal> refused(m, "RefusedError", PyExc_RuntimeError);
  const char* names[] = {"UnknownProblemError", "BadRequestError", "ConflictError", "QueueFullError", "DrainingError"};
  for (int i = 0; i < 5; ++i) {
    refusal_types[i] = PyErr_NewException((std::string("kbench._kbench.") + names[i]).c_str(), refused.ptr(), nullptr);
    m.attr(names[i]) = py::reinterpret_borrow<py::object>(refusal_types[i]);
  }
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<EnvironmentError>(m, "EnvironmentError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const EvaluatorRefusal& e) {
      PyErr_SetString(refusal_types[int(e.reason())], e.what());
    }
  });

  m.def("set_worker_executable", [](const std::string& kbench_binary) { set_worker_executable(kbench_binary); },
        "The kbench binary whose kbench-worker runs the evaluations");
  m.def("worker_executable", [] { return worker_executable().string(); });

  py::class_<PyHandle>(m, "Handle")
      .def("wait", &PyHandle::wait, py::arg("timeout") = py::none())
      .def("done", &PyHandle::done)
      .def("json", &PyHandle::json);

  py::class_<Evaluator, EvaluatorHolder>(m, "Evaluator")
      .def(py::init([](const std::string& suite, const std::string& device, std::optional<std::string> checks,
                       std::optional<int> workers, std::optional<int> workers_per_gpu,
                       std::optional<std::string> prestart, std::optional<std::string> keep_reference,
                       std::optional<double> keep_reference_drift, std::optional<double> timeout_s,
                       std::optional<std::string> work_dir, std::size_t max_queued, std::size_t keep_finished,
                       std::optional<std::function<void(const std::string&)>> log,
                       std::optional<std::string> timing_preset, std::optional<double> device_memory_gb,
                       bool fill_reference, std::optional<double> keep_finished_s) {
             EvaluatorConfig config;
             config.suite_file = suite;
             config.device = device;
             config.checks = std::move(checks);
             config.timing_preset = std::move(timing_preset);
             config.workers = workers;
             config.workers_per_gpu = workers_per_gpu;
             config.prestart = std::move(prestart);
             config.keep_reference = std::move(keep_reference);
             config.keep_reference_drift = keep_reference_drift;
             config.fill_reference = fill_reference;
             config.timeout_s = timeout_s;
             config.device_memory_gb = device_memory_gb;
             if (work_dir) config.work_dir = *work_dir;
             config.max_queued = max_queued;
             config.keep_finished = keep_finished;
             config.keep_finished_s = keep_finished_s;
             if (log) {
               auto callable = std::make_shared<std::function<void(const std::string&)>>(std::move(*log));
               config.log = [callable](const std::string& line) {
                 py::gil_scoped_acquire acquire;
                 try {
                   (*callable)(line);
                 } catch (const py::error_already_set&) {
                   // A failing log callback must not end the evaluator.
                 }
               };
             }
             py::gil_scoped_release release;  // the probe starts a worker and waits for it
             return EvaluatorHolder(new Evaluator(std::move(config)));
           }),
           py::arg("suite"), py::arg("device") = "auto", py::arg("checks") = py::none(),
           py::arg("workers") = py::none(), py::arg("workers_per_gpu") = py::none(),
           py::arg("prestart") = py::none(), py::arg("keep_reference") = py::none(),
           py::arg("keep_reference_drift") = py::none(), py::arg("timeout_s") = py::none(), py::arg("work_dir") = py::none(),
           py::arg("max_queued") = 256, py::arg("keep_finished") = 4096, py::arg("log") = py::none(),
           py::arg("timing_preset") = py::none(), py::arg("device_memory_gb") = py::none(),
           py::arg("fill_reference") = true, py::arg("keep_finished_s") = py::none())
      .def(
          "submit",
          [](Evaluator& self, const std::string& problem_id, const std::string& source, const std::string& backend,
             std::optional<std::string> request_id, std::optional<std::string> session_id,
             std::optional<py::function> on_done, bool is_reply) {
            EvaluationRequest request{problem_id, source, backend, std::move(request_id), std::move(session_id),
                                      is_reply};
            Evaluator::Listener listener;
            if (on_done) {
              // Called on the session's thread: the GIL is taken for it; it gets the JSON.
              // Released under the GIL, whichever thread drops the last copy.
              std::shared_ptr<py::function> callable(new py::function(std::move(*on_done)), [](py::function* f) {
                py::gil_scoped_acquire acquire;
                delete f;
              });
              listener = [callable](const Evaluation& evaluation) {
                const std::string json = evaluation_json(evaluation).dump();
                py::gil_scoped_acquire acquire;
                try {
                  (*callable)(json);
                } catch (py::error_already_set& error) {
                  error.discard_as_unraisable("kbench submit callback");
                }
              };
            }
            py::gil_scoped_release release;
            return PyHandle{self.submit(std::move(request), std::move(listener))};
          },
          py::arg("problem_id"), py::arg("source"), py::arg("backend") = "auto", py::arg("request_id") = py::none(),
          py::arg("session_id") = py::none(), py::arg("on_done") = py::none(), py::arg("is_reply") = false)
      .def("lookup",
           [](const Evaluator& self, const std::string& request_id) -> std::optional<std::string> {
             std::optional<RequestStatus> status;
             {
               py::gil_scoped_release release;
               status = self.lookup(request_id);
             }
             if (!status) return std::nullopt;
             nlohmann::json json = {{"request_id", status->request_id},
                                    {"problem_id", status->problem_id},
                                    {"state", to_string(status->state)}};
             if (status->evaluation) json["evaluation"] = evaluation_json(*status->evaluation);
             if (status->evicted)
               json["evicted"] = {{"reason", status->evicted->reason}, {"attempts", status->evicted->attempts}};
             return json.dump();
           })
      .def("stats",
           [](const Evaluator& self) {
             py::gil_scoped_release release;
             return to_json(self.stats()).dump();
           })
      .def("problem_ids", &Evaluator::problem_ids)
      .def("environment", [](const Evaluator& self) { return self.environment().dump(); })
      .def("drain", &Evaluator::drain, py::call_guard<py::gil_scoped_release>());
}
