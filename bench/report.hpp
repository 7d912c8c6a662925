// What smrbench prints and writes: the JSON record of a trial (schema "smrbench/1", see
// docs/results-format.md and bench/schema/record.schema.json), the terminal table, and --list.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options.hpp"
#include "registry.hpp"
#include "timeline_io.hpp"
#include "trial.hpp"

namespace smrbench {

inline constexpr const char* schema_id = "smrbench/1";

// The trial's config object (also the timeline file's header).
nlohmann::json trial_config(const options& o, const nlohmann::json& params, unsigned trial);

nlohmann::json trial_record(const options& o, unsigned trial, const trial_result& r, const nlohmann::json& env,
                            const std::optional<timeline_counts>& timeline, const std::string& timeline_file);

// Human-readable table, one row per trial, to `out`.
void print_table_header(std::FILE* out);
void print_table_row(std::FILE* out, const options& o, unsigned trial, const trial_result& r);
void print_summary(std::FILE* out, const std::vector<trial_result>& results);

// --list as a table, or as the JSON object {"data_structures","reclaimers","allocators","compatible",...}.
void print_list(std::FILE* out, const registry& reg);
nlohmann::json list_json(const registry& reg);

}  // namespace smrbench
