// The address view's data (issue 39): the records one warp of a rung left in the trace buffer of
// its instrumented kernel (ptx_instrument.h), grouped into warp-level accesses, with the 32-byte
// sectors each touches against the fewest that could hold its bytes, and for shared memory the
// bank of each lane's word and the access's bank-conflict degree. Written by `kladder trace
// --json`, read by the window's address view: a file from outside, so reading it checks every
// field (one line naming file, field and value).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/ptx_instrument.h"

namespace kl {

constexpr int kWarpLanes = 32;
constexpr int kSectorBytes = 32;
constexpr int kSharedBanks = 32;

struct TraceRecord {
    uint64_t address = 0;
    uint32_t site = 0;
    uint32_t lane_seq = 0;  // lane << 24 | sequence
};

// One warp-level access: the n-th execution of one site by the lanes that executed it.
struct WarpAccess {
    int site = 0;
    int occurrence = 0;  // 0 for a site's first execution by each lane, 1 for its second, ...
    bool store = false, shared = false;
    int bytes = 0;                                          // per lane
    std::array<std::optional<uint64_t>, kWarpLanes> lanes;  // address of each lane that took part
    int sectors = 0;                                        // distinct 32-byte sectors the lanes' bytes fall in
    int ideal_sectors = 0;  // ceil(distinct bytes / 32): the fewest that could hold them
    int bank_degree = 0;    // shared: most distinct 4-byte words in one bank (1: conflict-free)
    int ideal_degree = 0;   // shared: ceil(distinct words / 32), the fewest wavefronts
    int first_seq = 0;      // smallest sequence number among the lanes (program order)
};

struct AddressTrace {
    // What was traced
    std::string ladder, rung, entry, dtype;
    std::map<std::string, int64_t> params, sizes;
    std::array<int64_t, 3> block = {0, 0, 0};
    int warp = 0;
    std::array<int64_t, 3> grid = {1, 1, 1}, block_dim = {1, 1, 1};
    // Where and when: a trace is a recording of one GPU
    std::string device, date;
    // The instrumentation and what came back
    std::vector<TracedSite> sites;
    std::vector<std::string> not_traced;
    uint64_t records = 0, dropped = 0;
    std::vector<WarpAccess> accesses;  // in program order of the warp
};

// The records grouped by (site, occurrence per lane) and ordered by sequence; sectors and banks
// computed. Records naming a site or lane that does not exist are refused (InputError).
std::vector<WarpAccess> group_warp_accesses(const std::vector<TraceRecord>& records,
                                            const std::vector<TracedSite>& sites);

int bank_of(uint64_t shared_address);  // (address / 4) mod 32

std::string address_trace_json(const AddressTrace& t);
// Throws InputError "<origin>: <field>: <problem>" for anything not as written above.
AddressTrace parse_address_trace(const std::string& text, const std::string& origin);

// Whether `t` traces ladder/rung with every one of `params` at that value (a trace's other
// parameters, left at their defaults, may be anything).
bool trace_matches(const AddressTrace& t, const std::string& ladder, const std::string& rung,
                   const std::map<std::string, int64_t>& params);

// The table `kladder trace` prints: per access, the lanes' addresses, sectors, banks.
std::string address_trace_text(const AddressTrace& t);

}  // namespace kl
