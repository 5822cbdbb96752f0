// Wakes the window's UI thread while it waits for events (glfwWaitEventsTimeout, main.cpp):
// at idle the window draws nothing and sleeps until input or news arrives. The runner client's
// worker thread calls wake_ui() when it queues an event, so a result or a runner's exit that
// arrives at idle is drawn at once instead of at the next poll of the wait's time-out.
#pragma once

namespace kl::gui {

using WakeHook = void (*)();
// The window sets glfwPostEmptyEvent (thread-safe); nothing is called until one is set.
void set_wake_hook(WakeHook hook);
// Safe from any thread.
void wake_ui();

}  // namespace kl::gui
