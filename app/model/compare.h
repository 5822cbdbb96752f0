// Correctness of a rung's output against the reference: relative L2 error, max abs error,
// mismatches under a tolerance, unwritten (still-poisoned NaN) elements, and for 2-D outputs
// a downsampled error map that shows where in the matrix the rung is wrong.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/operation.h"

namespace kl {

struct Mismatch {
    int64_t index;
    double expected, actual;
};

struct ErrorMap {
    int rows = 0, cols = 0;  // map cells (<= 64 x 64)
    int64_t source_rows = 0, source_cols = 0;
    std::vector<float> fraction_bad;  // per cell: share of elements failing (NaN counts as failing)
};

struct Correctness {
    bool passed = false;
    double rel_l2 = 0;  // ||out - ref|| / ||ref|| over finite elements
    double max_abs = 0;
    int64_t elements = 0;
    int64_t mismatches = 0;  // elements outside tolerance (NaN/inf included)
    int64_t nan_count = 0;   // NaN or inf where the reference is finite
    int64_t unwritten = 0;   // NaN elements: the output was poisoned with NaN before the run
    Tolerance tolerance;
    std::vector<Mismatch> first_mismatches;  // up to 8, for the message
    ErrorMap error_map;                      // empty for 1-D outputs
    std::string summary() const;             // one line: "PASS rel_l2 3.1e-08" / "FAIL 12 of ..."
};

// shape = {rows, cols} for 2-D outputs (error map), {0, 0} for 1-D.
Correctness compare_outputs(const std::vector<float>& actual, const std::vector<float>& expected, const Tolerance& tol,
                            std::pair<int64_t, int64_t> shape = {0, 0});

}  // namespace kl
