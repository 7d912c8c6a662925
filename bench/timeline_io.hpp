// The timeline file (Epochs §3.1): after a trial, every recorded event, one CSV row each.
//
//   # smrbench-timeline 1 {"ds":...,"trial":1,...}     <- format version, then the config as JSON
//   thread,kind,start_ns,end_ns,value
//   0,epoch_advance,1834,1834,17
//
// Times are nanoseconds since the start of the timed trial; kinds are core::event_kind_name.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "smr/core/timeline.hpp"

namespace smrbench {

struct timeline_counts {
  std::uint64_t events = 0;
  std::uint64_t dropped = 0;
};

timeline_counts count_events(const smr::core::timeline& tl);

// The whole file's content.
std::string format_timeline(const smr::core::timeline& tl, const nlohmann::json& config);

// What a --timeline path names: a device (e.g. /dev/null) is written through for every trial;
// a FIFO takes one trial only (its reader stops at the first trial's end of file); anything else
// is a file per trial.
enum class timeline_target { file, device, fifo };
timeline_target timeline_target_of(const std::string& path);

// The file for trial `trial` of `trials`: the path itself for a single trial or a device, else
// the trial number before the extension (timeline.csv -> timeline.2.csv).
std::string timeline_path_for(const std::string& path, unsigned trial, unsigned trials);

}  // namespace smrbench
