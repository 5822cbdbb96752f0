// Unit tests of issue 34's limits (docs/security.md): every manifest is read as a regular file
// of bounded size (a FIFO named ladder.toml, lesson.toml or numbers_allowed.toml is refused at
// once, never waited on), and every JSON reader is depth-limited (device cards, device
// profiles, recorded peer figures, the prediction store).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "../engine/temp_tree.h"
#include "base/atomic_file.h"
#include "base/errors.h"
#include "course/bindings.h"
#include "course/lesson.h"
#include "course/lesson_check.h"
#include "course/prediction.h"
#include "model/device_card.h"
#include "model/device_profile.h"
#include "model/manifest.h"
#include "model/manifest_load.h"

namespace {

const std::string kDeep = std::string(100000, '[') + std::string(100000, ']');

// The error line of `load`, which must come within seconds: run on a thread, so that a read
// that blocks on a FIFO fails the test instead of hanging it (the thread is then left behind).
template <typename Load>
std::string error_within_seconds(Load load) {
    auto result = std::async(std::launch::async, [load]() -> std::string {
        try {
            load();
        } catch (const kl::Error& e) { return e.what(); }
        return "";
    });
    if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        ADD_FAILURE() << "the read blocked (FIFO waited on)";
        std::abort();  // the blocked thread cannot be joined
    }
    return result.get();
}

std::string fifo(const TempTree& t, const std::string& rel) {
    std::string p = t.path(rel);
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    return p;
}

}  // namespace

TEST(LimitsToml, FifoManifestsAreRefusedWithoutWaiting) {
    TempTree t;
    std::string ladder = fifo(t, "kernels/x/ladder.toml");
    std::string e = error_within_seconds([&] { kl::load_ladder(ladder); });
    EXPECT_NE(e.find(ladder + ": not a regular file"), std::string::npos) << e;

    std::string lesson = fifo(t, "lessons/01_x/lesson.toml");
    e = error_within_seconds([&] { kl::load_lesson(lesson, {}); });
    EXPECT_NE(e.find(lesson + ": not a regular file"), std::string::npos) << e;

    std::string allow = fifo(t, "lessons/numbers_allowed.toml");
    e = error_within_seconds([&] { kl::load_allowed_numbers(allow); });
    EXPECT_NE(e.find(allow + ": not a regular file"), std::string::npos) << e;
}

TEST(LimitsToml, AllLaddersListTheFifoAndGoOn) {
    TempTree t;
    fifo(t, "kernels/broken/ladder.toml");
    std::vector<std::string> errors;
    error_within_seconds([&] { kl::load_all_ladders(t.path("kernels"), &errors); });
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("broken/ladder.toml: not a regular file"), std::string::npos) << errors[0];
}

TEST(LimitsJson, DeviceCardsAndProfilesAreDepthLimited) {
    TempTree t;
    std::string card = t.write("cards/deep.json", "{\"values\": " + kDeep + "}");
    std::string e = error_within_seconds([&] { kl::load_device_card(card); });
    EXPECT_NE(e.find(card + ": nested deeper than 64 levels"), std::string::npos) << e;
    e = error_within_seconds([&] { kl::device_profile_from_json_text(kDeep, "deep_profile.json"); });
    EXPECT_NE(e.find("deep_profile.json: nested deeper than 64 levels"), std::string::npos) << e;
    // A schema of the wrong type is a field error, not nlohmann's type_error.
    std::string numbered = t.write("cards/schema_number.json", "{\"schema\": 5}");
    e = error_within_seconds([&] { kl::load_device_card(numbered); });
    EXPECT_NE(e.find("schema: expected"), std::string::npos) << e;
}

TEST(LimitsJson, DeepPeerFiguresAreListedNotFollowed) {
    TempTree t;
    std::string deep = t.write("recorded/peers/h100_2026-11-22.json", kDeep);
    fifo(t, "recorded/peers/h100_2026-11-23.json");
    std::vector<kl::Ladder> ladders;
    kl::NumberSources sources(&ladders);
    std::vector<std::string> errors;
    error_within_seconds([&] { sources.load_recorded(t.path("recorded"), &errors); });
    ASSERT_EQ(errors.size(), 1u);  // the FIFO is not a regular file: not even listed as a peer
    EXPECT_NE(errors[0].find(deep + ": nested deeper than 64 levels"), std::string::npos) << errors[0];
}

TEST(LimitsJson, DeepPredictionStoreIsIgnoredWithAWarning) {
    TempTree t;
    std::string path = t.write("progress.json", "{\"predictions\": " + kDeep + "}");
    kl::PredictionStore store(path);
    std::string warning;
    store.load(&warning);
    EXPECT_NE(warning.find("nested deeper than 64 levels"), std::string::npos) << warning;
}

TEST(LimitsRead, DevicesAndFifosAreRefusedBeforeOpening) {
    TempTree t;
    std::string f = fifo(t, "fifo");
    EXPECT_NE(error_within_seconds([&] { kl::read_file(f); }).find("not a regular file"), std::string::npos);
    EXPECT_NE(error_within_seconds([&] { kl::read_file("/dev/zero"); }).find("not a regular file"), std::string::npos);
    std::string big = t.write("big.json", std::string(5000, ' '));
    std::string e = error_within_seconds([&] { kl::read_file(big, 4096); });
    EXPECT_NE(e.find("5000 bytes is more than the 4096 bytes limit"), std::string::npos) << e;
    EXPECT_EQ(kl::read_file(big, 5000).size(), 5000u);
}
