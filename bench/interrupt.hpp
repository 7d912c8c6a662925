// What SIGINT, SIGTERM and SIGHUP do to a run.
//
// The first one asks the run to stop: the trial under way is abandoned, every completed trial's
// record is still written, and smrbench exits with 128 + the signal. A second one ends the process
// at once (after removing the temporary result files, so nothing partial is left behind).
// A signal that is ignored when smrbench starts (SIGHUP under nohup) stays ignored.
// SIGPIPE is ignored so that a closed FIFO or pipe is a write error with a message, not a silent
// death.
#pragma once

#include <string>

namespace smrbench {

// Installs the handlers; call once, after the allocator re-execution and before any output file
// is opened.
void install_interrupt_handlers();

// The signal that asked the run to stop, or 0. Cheap enough to poll.
int interrupt_signal();

// "SIGINT", "SIGTERM", "SIGHUP" or "signal N".
std::string signal_name(int sig);

// Result files a run may hold uncommitted at once: --json and one --timeline per trial (options.cpp
// limits --trials with --timeline to fit).
inline constexpr int max_pending_outputs = 128;

// Temporary files the second signal removes. remember_temporary returns a slot for
// forget_temporary (-1 if the table is full or the path too long: it is then not removed).
// Main thread only.
int remember_temporary(const std::string& path);
void forget_temporary(int slot);

}  // namespace smrbench
