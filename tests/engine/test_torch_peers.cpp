// The PyTorch peers' table (app/gpu/torch_bridge.h) without Python: the C++ list is read from the
// embedded Python table (no second copy in the program), every manifest's torch builtin is in it,
// and a missing libpython is one line saying what to install. Running the peers is test_gpu_torch's (label gpu).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/builtins.h"
#include "gpu/torch_bridge.h"
#include "model/manifest_load.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_torch_peers {

namespace {

std::set<std::string> names_in_python_table() {
    const auto file = std::filesystem::path(kl::kernels_dir()).parent_path() / "app/gpu/torch_helper/kl_torch_peers.py";
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::set<std::string> names;
    const std::regex entry("\\n    \"(torch\\.[a-z0-9_.]+)\": \\(");
    const std::string s = text.str();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), entry); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1]);
    return names;
}

TEST(TorchPeers, TheProgramsListIsTheEmbeddedTable) {
    const auto& list = kl::torch_peer_names();
    const std::set<std::string> cpp(list.begin(), list.end());
    EXPECT_EQ(cpp.size(), list.size()) << "a name twice";
    EXPECT_EQ(cpp, names_in_python_table());
    for (const auto& name : list) {
        EXPECT_TRUE(kl::is_torch_peer_name(name)) << name;
        EXPECT_TRUE(kl::is_builtin(name)) << name;
    }
    EXPECT_FALSE(kl::is_builtin("torch.eval"));
}

TEST(TorchPeers, TheListIsReadFromTheTableItsKeysInOrder) {
    const std::string table =
        "import torch\n_OTHER = {\n    \"torch.not_a_peer\": (1, None),\n}\n"
        "# name -> (argument count, builder)\n_TABLE = {\n"
        "    \"torch.made_up\": (5, lambda a: _add(*a)),\n"
        "    \"torch.compile.made_up\": (4, lambda a: _gelu(\n        *a, compiled=True)),\n"
        "}\n\n\ndef kl_peer_names():\n    return \"torch.after\"\n";
    EXPECT_EQ(kl::torch_peer_names_in(table), (std::vector<std::string>{"torch.made_up", "torch.compile.made_up"}));
    EXPECT_THROW(kl::torch_peer_names_in("_TABLE = dict()\n"), kl::InputError);
    EXPECT_THROW(kl::torch_peer_names_in("x\n_TABLE = {\n    \"torch.a\": (1, f),\n"), kl::InputError);
    EXPECT_THROW(kl::torch_peer_names_in("x\n_TABLE = {\n    \"os.system\": (1, f),\n}\n"), kl::InputError);
    EXPECT_THROW(kl::torch_peer_names_in("x\n_TABLE = {\n    \"torch.A b\": (1, f),\n}\n"), kl::InputError);
}

// The defect this guards against: a second, hand-kept list of the peers beside the table.
TEST(TorchPeers, NoProgramSourceSpellsAPeerName) {
    const auto app = std::filesystem::path(kl::kernels_dir()).parent_path() / "app";
    ASSERT_FALSE(kl::torch_peer_names().empty());
    for (const auto& entry : std::filesystem::recursive_directory_iterator(app)) {
        const auto ext = entry.path().extension();
        if (ext != ".cpp" && ext != ".h") continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        for (const auto& name : kl::torch_peer_names())
            EXPECT_EQ(text.str().find("\"" + name + "\""), std::string::npos) << entry.path() << " spells " << name;
    }
}

TEST(TorchPeers, EveryManifestPeerIsInTheTable) {
    std::vector<std::string> errors;
    const auto ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    ASSERT_TRUE(errors.empty()) << errors.front();
    int peers = 0;
    for (const auto& ladder : ladders)
        for (const auto* rung : ladder.every_rung())
            for (const auto& launch : rung->launches)
                if (kl::is_torch_peer_name(launch.builtin)) {
                    ++peers;
                    EXPECT_TRUE(kl::is_builtin(launch.builtin)) << ladder.id << "/" << rung->id;
                    EXPECT_TRUE(rung->reference) << ladder.id << "/" << rung->id << " is a peer: reference = true";
                }
    EXPECT_GE(peers, 10);
}

TEST(TorchPeers, AMissingLibpythonIsOneLineNamingWhatToInstall) {
    void* handle = reinterpret_cast<void*>(1);
    std::string why = kl::load_libpython("libpython9.97.so.1.0", "/nonexistent", "9.97", &handle);
    EXPECT_EQ(handle, nullptr);
    EXPECT_NE(why.find("install libpython9.97"), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos);
    why = kl::load_libpython("", "/usr/lib", "3.11", &handle);
    EXPECT_NE(why.find("names no shared libpython"), std::string::npos) << why;
    why = kl::load_libpython("../../evil.so", "/usr/lib", "3.11", &handle);
    EXPECT_NE(why.find("names no shared libpython"), std::string::npos) << why;
    EXPECT_EQ(handle, nullptr);
}

}  // namespace

}  // namespace kl_test_torch_peers
