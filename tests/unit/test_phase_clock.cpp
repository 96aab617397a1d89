// The worker's phase clock (lib/worker/phase_clock.hpp): phases summed by name, and the steps
// inside them keyed "phase.step", so a long phase can be taken apart without changing it.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "worker/phase_clock.hpp"

using namespace kbench;
using namespace std::chrono_literals;

TEST_CASE("steps are keyed by the phase they ran in, summed, and never exceed it") {
  PhaseClock& clock = PhaseClock::instance();
  clock.enter("reference");
  for (int i = 0; i < 2; ++i) {
    PhaseStep step("build_inputs");
    std::this_thread::sleep_for(20ms);
  }
  std::this_thread::sleep_for(10ms);  // outside any step: the phase's, not a step's
  clock.enter("timing");
  { PhaseStep step("build_inputs"); }
  clock.enter("reference");  // entered again: summed with the first visit
  {
    PhaseStep step("model_call");
    std::this_thread::sleep_for(5ms);
  }
  clock.finish();

  const auto phases = clock.json();
  const auto steps = clock.steps_json();
  INFO(phases.dump() << " " << steps.dump());
  REQUIRE(steps.contains("reference.build_inputs"));
  REQUIRE(steps.contains("timing.build_inputs"));
  REQUIRE(steps.contains("reference.model_call"));
  CHECK(steps.size() == 3);
  CHECK(steps["reference.build_inputs"].get<double>() >= 0.040);
  CHECK(steps["reference.model_call"].get<double>() >= 0.005);
  const double in_steps = steps["reference.build_inputs"].get<double>() + steps["reference.model_call"].get<double>();
  CHECK(in_steps <= phases["reference"].get<double>());
  CHECK(phases["reference"].get<double>() >= in_steps + 0.010);
  CHECK(phases.size() == 2);  // steps are not phases
}

TEST_CASE("a nested step's time is its own, not also its parent's") {
  PhaseClock& clock = PhaseClock::instance();
  clock.enter("nesting");
  {
    PhaseStep outer("timing_run");
    std::this_thread::sleep_for(10ms);
    {
      PhaseStep inner("build_inputs");
      std::this_thread::sleep_for(30ms);
    }
  }
  clock.finish();
  const auto steps = clock.steps_json();
  INFO(steps.dump());
  CHECK(steps["nesting.build_inputs"].get<double>() >= 0.030);
  CHECK(steps["nesting.timing_run"].get<double>() >= 0.010);
  CHECK(steps["nesting.timing_run"].get<double>() < 0.030);  // without the inner step's 30 ms
  CHECK(steps["nesting.timing_run"].get<double>() + steps["nesting.build_inputs"].get<double>() <=
        clock.json()["nesting"].get<double>());
}

TEST_CASE("a step outside any phase keeps its own name") {
  PhaseClock& clock = PhaseClock::instance();
  clock.finish();
  { PhaseStep step("startup_probe"); }
  CHECK(clock.steps_json().contains("startup_probe"));
}

TEST_CASE("the observer hears each phase entered, as current() then says it") {
  PhaseClock& clock = PhaseClock::instance();
  std::vector<std::string> heard;
  clock.set_observer([&](const std::string& phase) {
    CHECK(clock.current() == phase);  // said after the switch, so a lock line names the new phase
    heard.push_back(phase);
  });
  clock.enter("judge_setup");
  clock.enter("judge_trials");
  clock.enter("judge_trials");
  clock.finish();  // closing a phase enters none: nothing to say
  clock.set_observer(nullptr);
  clock.enter("judge_calls");  // no observer: nothing heard
  clock.finish();
  CHECK(heard == std::vector<std::string>{"judge_setup", "judge_trials", "judge_trials"});
}
