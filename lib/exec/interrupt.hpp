#pragma once
// SIGINT/SIGTERM handling for the controller, in two stages. The handler only counts signals.
// First signal: stop scheduling, let running jobs finish, write the reports. Second signal: kill
// the running workers' process groups as well (run_worker_process polls kill_requested()).
namespace kbench {

void install_interrupt_handlers();
bool interrupt_requested();  // >= 1 signal: start no new job
bool kill_requested();       // >= 2 signals: kill the running workers
void request_interrupt();  // one more stage, as a signal would (also used by tests)
void reset_interrupts();   // back to no signal (tests)

}  // namespace kbench
