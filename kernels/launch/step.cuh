// The launch ladder's one step: y = y + 1 for each element, one float add. Every rung does
// exactly these adds in this order, so results match the reference bit for bit.
#pragma once

__device__ __forceinline__ float kl_step(float v) { return v + 1.0f; }
