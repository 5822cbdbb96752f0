#include "course/prediction.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "course/bindings.h"

namespace kl {

Binding prediction_binding(const LessonStep& step) {
    Binding b;
    b.target = step.ladder + "/" + step.rung;
    b.metric = step.predict_metric;
    std::map<std::string, int64_t> keys(step.sizes.begin(), step.sizes.end());
    for (const auto& [k, v] : step.params) keys[k] = v;
    for (const auto& [k, v] : step.predict_at) keys[k] = v;
    b.source = b.target + " " + b.metric;
    for (const auto& [k, v] : keys) {
        b.keys.emplace_back(k, std::to_string(v));
        b.source += " " + k + "=" + std::to_string(v);
    }
    if (!step.dtype.empty()) {
        b.keys.emplace_back("dtype", step.dtype);
        b.source += " dtype=" + step.dtype;
    }
    if (step.runner.cold_l2 && !*step.runner.cold_l2) {  // a step that measures warm is judged warm
        b.keys.emplace_back("l2", "warm");
        b.source += " l2=warm";
    }
    return b;
}

std::string prediction_at_text(const LessonStep& step) {
    std::string out;
    for (const auto& [k, v] : step.predict_at) {
        std::string value = std::to_string(v);
        // Powers of two read better as 2^K once they are large (sizes such as n = 2^28).
        if (v >= 4096 && (v & (v - 1)) == 0) {
            int e = 0;
            while ((int64_t(1) << e) < v) ++e;
            value = "2^" + std::to_string(e);
        }
        out += (out.empty() ? "" : ", ") + k + " = " + value;
    }
    return out;
}

std::string prediction_prompt(const LessonStep& step) {
    if (!step.predict_ask.empty()) return step.predict_ask;
    const std::string at = prediction_at_text(step);
    return "Predict what " + step.rung + " measures, in " + run_metric_unit(step.predict_metric) +
           (at.empty() ? "" : ", at " + at) + ".";
}

PredictionVerdict judge_prediction(double predicted, double measured, double tolerance, const std::string& unit) {
    PredictionVerdict v;
    v.ratio = predicted != 0 ? measured / predicted : 0;
    double off = measured != 0 ? (predicted - measured) / std::fabs(measured) : 0;
    v.within = std::fabs(predicted - measured) <= tolerance * std::fabs(measured);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f%%", std::fabs(off) * 100);
    char tol[32];
    std::snprintf(tol, sizeof tol, "%.0f%%", tolerance * 100);
    v.line = "You predicted " + format_bound(predicted, unit, -1, false) + "; measured " +
             format_bound(measured, unit, -1, false) + ": " +
             (std::fabs(off) < 0.005 ? std::string("spot on") : std::string(pct) + (off > 0 ? " high" : " low")) +
             (v.within ? ", within " : ", outside ") + tol + ".";
    return v;
}

std::string PredictionStore::default_path() { return data_dir() + "/progress.json"; }

void PredictionStore::load(std::string* warning) {
    values_.clear();
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    try {
        nlohmann::json j = parse_json_limited(read_file(path_), path_);
        const nlohmann::json& p = j.at("predictions");
        for (const auto& [lesson, steps] : p.items())
            for (const auto& [step, value] : steps.items())
                if (value.is_number()) values_[lesson][std::stoi(step)] = value.get<double>();
    } catch (const std::exception& e) {
        values_.clear();
        if (warning) *warning = path_ + ": ignored (" + e.what() + ")";
    }
}

void PredictionStore::save() const {
    nlohmann::json p = nlohmann::json::object();
    for (const auto& [lesson, steps] : values_)
        for (const auto& [step, value] : steps) p[lesson][std::to_string(step)] = value;
    nlohmann::json j = {{"version", 1}, {"predictions", p}};
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
    write_file_atomically(path_, j.dump(2) + "\n");
}

std::optional<double> PredictionStore::get(const std::string& lesson, int step) const {
    auto l = values_.find(lesson);
    if (l == values_.end()) return std::nullopt;
    auto s = l->second.find(step);
    if (s == l->second.end()) return std::nullopt;
    return s->second;
}

void PredictionStore::set(const std::string& lesson, int step, double value) { values_[lesson][step] = value; }

void PredictionStore::reset(const std::string& lesson) { values_.erase(lesson); }

}  // namespace kl
