// A results file as JSON: written (to_json, save_results: atomic, one run a line) and read
// (strict about types, tolerant of unknown extra fields; version 1 files still read). Every
// value is checked on the way in (results_values.h); the schema: docs/results-schema.md.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "model/results.h"

namespace kl {

nlohmann::json to_json(const ResultsFile& r);
nlohmann::json to_json(const RunRecord& r);
nlohmann::json to_json(const Calibration& c);
nlohmann::json to_json(const DeviceInfo& d);
// Throws InputError "<origin>: <field>: <problem>" on a document that does not match.
ResultsFile results_from_json(const nlohmann::json& j, const std::string& origin);
Calibration calibration_from_json(const nlohmann::json& j, const std::string& origin);
// One record or one device alone, read as a results file's are (the runner protocol sends them).
RunRecord record_from_json(const nlohmann::json& j, const std::string& origin, const std::string& field);
DeviceInfo device_from_json(const nlohmann::json& j, const std::string& origin);
ResultsFile load_results(const std::string& path);
std::string results_to_text(const ResultsFile& r);                 // the bytes save_results writes
void save_results(const std::string& path, const ResultsFile& r);  // atomic

}  // namespace kl
