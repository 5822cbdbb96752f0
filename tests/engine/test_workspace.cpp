// The learner's workspace: forking a rung, reading the learner's rungs back as rungs of the
// ladder, and refusing a broken or escaping workspace manifest in one line.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "model/manifest_load.h"
#include "model/workspace.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_workspace {

using namespace kl;
namespace fs = std::filesystem;

namespace {

// Every regular file under `dir` with its last write time, to see that nothing was written there.
std::map<std::string, fs::file_time_type> snapshot(const std::string& dir) {
    std::map<std::string, fs::file_time_type> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const std::string p = it->path().string();
        if (p.find("/build") != std::string::npos || p.find("/.git") != std::string::npos) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec)) files[p] = it->last_write_time(ec);
    }
    return files;
}

Ladder elementwise() { return load_ladder(kernels_dir() + "/elementwise/ladder.toml"); }

}  // namespace

TEST(Workspace, ForkCopiesTheRungAndItsEntryOutsideTheRepository) {
    TempTree t;
    const std::string root = t.path("data/kernel-ladder/workspace");
    const auto before = snapshot(data_root() + "/kernels");
    Ladder L = elementwise();
    ForkedRung f = fork_rung(L, "vector_add", root);
    EXPECT_EQ(f.id, "mine_vector_add");
    EXPECT_EQ(f.title, "mine: Vector add");
    EXPECT_EQ(f.source_path, root + "/elementwise/mine_vector_add.cu");
    EXPECT_EQ(read_file(f.source_path), read_file(L.find_rung("vector_add")->source_path));
    EXPECT_EQ(snapshot(data_root() + "/kernels"), before);

    auto mine = list_learner_rungs(L, root);
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_TRUE(mine[0].learner);
    EXPECT_EQ(mine[0].forked_from, "vector_add");
    EXPECT_EQ(mine[0].number, "M1");
    EXPECT_EQ(mine[0].index, static_cast<int>(L.rungs.size()));
    EXPECT_EQ(mine[0].operation, "vector_add");
    // Same launches and parameters as the original, in its slider order.
    ASSERT_EQ(mine[0].params.size(), 2u);
    EXPECT_EQ(mine[0].params[0].name, "TPB");
    EXPECT_EQ(mine[0].params[1].name, "EPT");
    EXPECT_EQ(mine[0].launches.size(), 1u);
    EXPECT_EQ(mine[0].launches[0].entry, "vector_add");
}

TEST(Workspace, SecondForkGetsTheNextNameAndNumberAndMergesIntoTheLadder) {
    TempTree t;
    const std::string root = t.path("ws");
    Ladder L = elementwise();
    fork_rung(L, "gelu_fused_vec", root);
    ForkedRung again = fork_rung(L, "gelu_fused_vec", root);
    EXPECT_EQ(again.id, "mine_gelu_fused_vec_2");
    std::string error;
    const size_t own = L.rungs.size();
    merge_learner_rungs(L, root, &error);
    EXPECT_EQ(error, "");
    ASSERT_EQ(L.rungs.size(), own + 2);
    // After the ladder's last teaching rung, before the PyTorch peers that follow it; every
    // rung's index is its new position.
    size_t m2 = 0;
    while (m2 < L.rungs.size() && L.rungs[m2].id != "mine_gelu_fused_vec_2") ++m2;
    ASSERT_LT(m2, L.rungs.size());
    EXPECT_EQ(L.rungs[m2].number, "M2");
    EXPECT_EQ(L.rungs[m2 - 1].number, "M1");
    EXPECT_FALSE(L.rungs[m2 - 2].reference);
    ASSERT_LT(m2 + 1, L.rungs.size());
    EXPECT_TRUE(L.rungs[m2 + 1].reference) << L.rungs[m2 + 1].id;
    for (size_t i = 0; i < L.rungs.size(); ++i) EXPECT_EQ(L.rungs[i].index, static_cast<int>(i));
    EXPECT_EQ(L.find_rung("mine_gelu_fused_vec_2")->forked_from, "gelu_fused_vec");
    // Merging twice adds nothing.
    merge_learner_rungs(L, root, &error);
    EXPECT_EQ(L.rungs.size(), own + 2);
}

TEST(Workspace, ForkFromAStarterFileCopiesTheStarter) {
    TempTree t;
    std::string starter = t.write("lesson/starter.cu", "// starter\nextern \"C\" __global__ void vector_add() {}\n");
    ForkedRung f = fork_rung(elementwise(), "vector_add", t.path("ws"), starter);
    EXPECT_EQ(read_file(f.source_path), read_file(starter));
}

TEST(Workspace, ForkCopiesTheLaddersOwnHeaders) {
    TempTree t;
    Ladder L = load_ladder(kernels_dir() + "/layernorm/ladder.toml");
    fork_rung(L, L.rungs.front().id, t.path("ws"));
    EXPECT_TRUE(fs::exists(t.path("ws/layernorm/ln_common.cuh")));
}

TEST(Workspace, RefusesALibraryRungAndAnUnknownRung) {
    TempTree t;
    Ladder M = load_ladder(kernels_dir() + "/matmul/ladder.toml");
    const Rung* lib = nullptr;
    for (const auto& r : M.rungs)
        if (r.file.empty()) lib = &r;
    ASSERT_NE(lib, nullptr);
    EXPECT_NE(input_error_of([&] { fork_rung(M, lib->id, t.path("ws")); }).find("no source to fork"),
              std::string::npos);
    EXPECT_NE(input_error_of([&] { fork_rung(M, "nope", t.path("ws")); }).find("has no rung 'nope'"),
              std::string::npos);
    EXPECT_FALSE(fs::exists(t.path("ws/matmul/manifest.toml")));
}

TEST(Workspace, RefusesAWorkspaceInsideTheRepository) {
    const std::string inside = data_root() + "/kernels/ws";
    std::string msg = input_error_of([&] { fork_rung(elementwise(), "vector_add", inside); });
    EXPECT_NE(msg.find("inside the repository tree"), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(inside));
}

TEST(Workspace, WorkspaceRootFollowsXdgDataHome) {
    TempTree t;
    const char* old = std::getenv("XDG_DATA_HOME");
    std::string saved = old ? old : "";
    setenv("XDG_DATA_HOME", t.root().c_str(), 1);
    EXPECT_EQ(workspace_root(), t.root() + "/kernel-ladder/workspace");
    setenv("XDG_DATA_HOME", (data_root() + "/lessons").c_str(), 1);
    EXPECT_NE(input_error_of([] { workspace_root(); }).find("inside the repository tree"), std::string::npos);
    if (old)
        setenv("XDG_DATA_HOME", saved.c_str(), 1);
    else
        unsetenv("XDG_DATA_HOME");
}

// A hand-edited workspace manifest: each way it can be wrong gives one line naming file and field.
TEST(Workspace, BrokenWorkspaceManifestIsRefusedNamingFileAndField) {
    TempTree t;
    const std::string root = t.path("ws");
    Ladder L = elementwise();
    fork_rung(L, "vector_add", root);
    const std::string m = workspace_manifest_path(root, "elementwise");
    const std::string good = read_file(m);
    auto refusal = [&](const std::string& text) {
        t.write("ws/elementwise/manifest.toml", text);
        Ladder copy = L;
        return input_error_of([&] { append_learner_rungs(copy, m); });
    };
    auto replace = [&](std::string s, const std::string& from, const std::string& to) {
        size_t p = s.find(from);
        EXPECT_NE(p, std::string::npos) << from;
        return p == std::string::npos ? s : s.replace(p, from.size(), to);
    };
    EXPECT_EQ(refusal(good), "");
    EXPECT_NE(refusal("[[rung]\n").find(m + ":1"), std::string::npos);
    EXPECT_NE(refusal(replace(good, "ladder = 'elementwise'", "ladder = 'softmax'")).find("workspace.ladder"),
              std::string::npos);
    std::string escape = refusal(replace(good, "file = 'mine_vector_add.cu'", "file = '../../../etc/passwd'"));
    EXPECT_NE(escape.find(m), std::string::npos) << escape;
    EXPECT_NE(escape.find(".file"), std::string::npos) << escape;
    fs::create_directories(t.path("outside"));
    t.write("outside/evil.cu", "x");
    fs::create_symlink(t.path("outside/evil.cu"), t.path("ws/elementwise/link.cu"));
    EXPECT_NE(refusal(replace(good, "file = 'mine_vector_add.cu'", "file = 'link.cu'")).find(".file"),
              std::string::npos);
    EXPECT_NE(refusal(replace(good, "forked_from = 'vector_add'", "forked_from = 'nope'")).find("forked_from"),
              std::string::npos);
    EXPECT_NE(refusal(replace(good, "id = 'mine_vector_add'", "id = 'vector_add'")).find("already has a rung"),
              std::string::npos);
    EXPECT_NE(refusal(replace(good, "forked_from = 'vector_add'", "reference = true")).find("unknown field"),
              std::string::npos);
    EXPECT_NE(
        refusal(replace(good, "grid = [ 'cdiv(n, TPB * EPT)' ]", "grid = [ 'cdiv(n, Q)' ]")).find("unknown name 'Q'"),
        std::string::npos);
    // merge_learner_rungs says the same in one line and leaves the ladder as it was.
    refusal(replace(good, "forked_from = 'vector_add'", "forked_from = 'nope'"));
    std::string error;
    const size_t own = L.rungs.size();
    merge_learner_rungs(L, root, &error);
    EXPECT_EQ(L.rungs.size(), own);
    EXPECT_NE(error.find("forked_from"), std::string::npos);
}

}  // namespace kl_test_workspace
