// PyTorch peers on the runner's own stopwatch (issue "One clock", part 3). A manifest launch
// `builtin = "torch.<peer>"` names a peer from the table the program carries
// (app/gpu/torch_helper/kl_torch_peers.py, embedded at build time); the runner times and checks it
// exactly as it does a rung: its buffers, its L2 flush, its hold and clock watch, its CUDA events,
// its reference comparison.
//
// Why in-process: the runner's events must bracket the peer's kernels on the runner's stream, and a
// second process would be a second CUDA context, time-sliced against the first. So the learner's
// python3 is asked where its libpython is, that library is loaded (dlopen) into this process, and
// the interpreter runs with python3's own search path (its venv's site-packages), isolated from
// PYTHON* variables and user site-packages as the Triton helper is (docs/security.md). A rung names
// a peer; it cannot give code: the table is ours.
//
// Without python3, a shared libpython or an importable torch, a peer rung is skipped with the one
// line saying which (torch_peer_availability()); its recordings still show.
#pragma once
#include <string>
#include <vector>

#include "gpu/routine_target.h"
#include "model/manifest.h"
#include "model/op_context.h"

namespace kl {

// "torch.<peer>": a builtin routed to the PyTorch bridge.
bool is_torch_peer_name(const std::string& name);
// Every peer the embedded table offers, as manifests spell them, in table order: read from the
// embedded kl_torch_peers.py at first use (no Python needed), never a second copy.
const std::vector<std::string>& torch_peer_names();
// The keys of the `_TABLE = {` literal in `python_table` (kl_torch_peers.py's text). Throws
// InputError naming the line when the table is missing, unclosed or has a key of another shape.
std::vector<std::string> torch_peer_names_in(const std::string& python_table);

struct TorchAvailability {
    bool available = false;
    std::string reason;   // when not: one line, what is missing and what to install
    std::string version;  // torch.__version__ and CUDA when available ("2.11.0+cu130")
};
// Starts the interpreter and imports torch on the first call (seconds); the answer is kept.
const TorchAvailability& torch_peer_availability();

// Loads libpython `soname` (from `libdir`, else by name) for the bridge: "" and *handle set, or the
// one line saying what is missing (no shared library: a statically linked python3).
std::string load_libpython(const std::string& soname, const std::string& libdir, const std::string& version,
                           void** handle);

// "" when the rung runs here, else why it is skipped: a rung with a PyTorch peer launch on a machine
// without python3 and torch (what is missing, in one line).
std::string torch_peer_refusal(const Rung& rung);

// One call of the peer on target.stream: arguments resolved in manifest order (buffers, then
// sizes). On a checking call (target.checking) the peer's result is copied into the ladder's
// output buffers. Throws InputError for an unknown peer or a wrong argument list, GpuError when
// PyTorch is unavailable or raises (its exception in one line).
void run_torch_peer(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& target);

}  // namespace kl
