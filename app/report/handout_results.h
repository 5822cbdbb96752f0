// The results behind one handout: one device, from one or several results files.
//
// A handout names one GPU (its header, every figure), so files of several devices are never
// mixed: files of the same device (the same device name: recordings of one model come from
// different machines, whose UUIDs differ) are merged, and files of different devices are either
// refused in one line naming both or, asked for, grouped into one handout per device. The
// window's Export lesson builds the same input from its results store (results_for_device).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/device_info.h"
#include "report/figure_request.h"

namespace kl::report {

// The device a results file names, as shown ("unknown device" when it names none).
std::string results_device(const ResultsFile& file);

// Several files of one device as one: the runs of all (a later-created file's run answers before
// an earlier one's of the same rung and settings), the newest calibration and device record, the
// newest `created`. The store keeps each file as its own source, so a figure can name the dates of
// the runs it draws. Throws InputError when the files name different devices (one line naming
// the first two files of different devices and their devices).
LoadedResults merge_results(std::vector<LoadedResults> files);

// The files grouped by device, in the order each device first appears, each group merged.
std::vector<LoadedResults> merge_per_device(std::vector<LoadedResults> files);

// The runs of `device` in a results store (the window's recordings and live runs) as one
// export's results, each recorded file kept as its own source; `live_device` describes the live
// runner's GPU (its runs count when its name is `device`). Throws InputError when the store holds
// no run of `device`.
LoadedResults results_for_device(const ResultsStore& store, const std::string& device,
                                 const std::optional<DeviceInfo>& live_device);

// "2026-11-22", or "2026-11-22 to 2026-11-24" when the runs come from files of several dates.
std::string measured_dates(const ResultsStore& store, const std::vector<const StoredRun*>& runs);
// The same for every run of the store.
std::string measured_dates(const ResultsStore& store);

}  // namespace kl::report
