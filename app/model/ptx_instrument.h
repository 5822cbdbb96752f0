// The address view's instrumentation (issue 39): a pure text transform of the PTX that NVRTC made
// for a rung, so that the kernel itself, at the learner's parameters, records for one chosen
// (block, warp) every load and store it makes to global and shared memory. No simulation: the
// addresses are the ones the kernel computes. Needs no GPU; `kladder trace` (gpu/address_trace_run.h)
// loads the result and launches it once.
//
// What the rewrite does, for each `.entry` of the module:
//   - appends one parameter, `<entry>_kl_trace` (.u64): the trace buffer (layout below);
//   - at the top of the body, decides once whether this thread belongs to the traced warp
//     (%ctaid against the block in the buffer's header, the warp from the linear %tid) and keeps
//     its lane (linear tid mod 32);
//   - before every ld/ldu/st to .global or .shared (scalar and .v2/.v4/.v8 forms, .nc and cache
//     hints included), under the instruction's own predicate: a per-thread sequence number is
//     counted, and a traced thread appends {byte address, site, lane, sequence} with one atomic
//     on the buffer's counter. Past the capacity records are dropped, and counted.
// Addresses of shared accesses are the shared-window offsets the instruction uses (its register
// or symbol), so that bank = (address / 4) mod 32.
// Not traced, and listed in `not_traced` with their PTX line: cp.async and bulk/TMA copies,
// wgmma/tcgen05, ldmatrix/stmatrix, atomics and reductions, generic (no state space) and
// distributed-shared (::cluster) accesses, and accesses inside non-inlined .func bodies.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kl {

// The trace buffer: a 32-byte header, then records of 16 bytes.
//   header u32[0] records appended (may exceed capacity: the rest were dropped)
//          u32[1] capacity in records
//          u32[4..7] traced block x, y, z and warp (linear thread index / 32)
//   record u64 address, u32 site, u32 lane << 24 | (sequence & 0xffffff)
constexpr int kTraceHeaderBytes = 32;
constexpr int kTraceRecordBytes = 16;

struct TracedSite {
    int id = 0;        // the record's site field
    int ptx_line = 0;  // 1-based line in the original PTX
    std::string entry;
    bool store = false;
    bool shared = false;  // else global
    int bytes = 0;        // per thread: element size times vector width
    std::string text;     // the instruction, trimmed
};

struct InstrumentedPtx {
    std::string ptx;
    std::vector<std::string> entries;  // each one now takes the trace buffer as its last parameter
    std::vector<TracedSite> sites;
    std::vector<std::string> not_traced;  // "line 57: cp.async.ca.shared.global ... (asynchronous copy)"
};

// Throws InputError when the PTX has no .entry or an access whose address cannot be read.
InstrumentedPtx instrument_ptx(const std::string& ptx);

}  // namespace kl
