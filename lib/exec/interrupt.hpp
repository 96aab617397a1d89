#pragma once
// SIGINT/SIGTERM handling for the controller. The handler only sets a flag; the worker loop
// polls it, kills the running worker's process group and the run stops with what is done.
namespace kbench {

void install_interrupt_handlers();
bool interrupt_requested();
void request_interrupt();  // also used by tests

}  // namespace kbench
