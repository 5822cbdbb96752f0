#include "gui/wake.h"

#include <atomic>

namespace kl::gui {

namespace {
std::atomic<WakeHook> g_wake_hook{nullptr};
}  // namespace

void set_wake_hook(WakeHook hook) { g_wake_hook.store(hook); }

void wake_ui() {
    if (WakeHook hook = g_wake_hook.load()) hook();
}

}  // namespace kl::gui
