// The last round of matmul rung 18's persistent walk, re-cut into narrow pieces (NARROW = 1).
//
// Why: at 4096^3 the pair's 256 x 256 stacks number 256 for the 66 pairs an H100 holds, so three
// whole rounds leave 58 stacks, and the fourth round takes a whole tile's time while 8 pairs
// idle (or, with FULL_ROUNDS, 64 pairs run four full rounds): the makespan is 4 tile times for
// 3.88 tiles of work per pair. Cutting those 58 stacks along K (STREAMK) starts the pieces at K
// offsets their neighbours do not share and cost 40% more DRAM reads (eighth session); cutting
// them into 64-column pieces (mlp rung 5's TAIL) leaves each piece too few loads in flight to
// keep its tensor cores busy. Here the left-over stacks are re-cut along N only, into pieces as
// wide as the clusters allow, at most NARROW_N = 232 columns: every piece runs all of K from
// K-tile 0 in step with the others, with a whole tile's loads (B's four boxes, of which the
// wgmma reads 232 columns) and an m64n232k16 wgmma, 232 / 256 = 0.906 of a tile's time.
//
// The shape: rung 18's grouped order hands out the stacks of its last group column by column,
// so the stacks left over are the bottom rows of one column and every column right of it. Each
// of the last group's stack rows (a band of CM * BM rows of C) thus holds k or k + 1 left-over
// stacks at its right end, and its columns from there to N are cut into equal pieces, a
// multiple of 8 columns wide. At 4096^3 on 66 pairs: six bands of 7 stacks (1,792 columns, 8
// pieces of 224) and two of 8 (2,048 columns, 8 pieces of 232 and one of 192): 66 pieces.
// When the pieces would outnumber the clusters, the left-over stacks lie outside the last group,
// or N % 8 != 0 (a piece's edge must be a 16-byte multiple for the copy engine), the plan is
// empty and the stacks are dealt out whole, as without NARROW.
#pragma once

#define NARROW_N 232  // the widest piece: an m64nNk16 wgmma's N (a multiple of 8 up to 256)

struct NarrowTail {
    int units = 0;                       // pieces (0: no plan, the left-over stacks run whole)
    int first_m = 0;                     // the last group's first stack row: band b covers stack row first_m + b
    int top = 0;                         // bands 0 .. top - 1 hold k left-over stacks, the bands below k + 1
    int top_pieces = 0, low_pieces = 0;  // pieces per band, in the top bands and below
    int top_width = 0, low_width = 0;    // their width (the band's last piece may be narrower)
    int top_start = 0, low_start = 0;    // the first column of the bands' left-over stacks
    int n = 0;                           // N: a band's last piece ends there

    // Pieces and their width for a band whose left-over columns start at `start`.
    __device__ static void cut(int start, int N, int& pieces, int& width) {
        const int cols = N - start;
        pieces = cols > 0 ? (cols + NARROW_N - 1) / NARROW_N : 0;
        width = pieces > 0 ? ((cols + pieces - 1) / pieces + 7) / 8 * 8 : 0;
    }
    // `left` stacks remain after the whole rounds, on a stacks_m x stacks_n grid of stacks
    // `stack_cols` columns wide, grouped `group_stacks` stack rows at a time.
    __device__ void plan(int stacks_m, int stacks_n, int group_stacks, int left, int clusters, int N, int stack_cols) {
        units = 0;
        first_m = (stacks_m - 1) / group_stacks * group_stacks;
        const int rows = stacks_m - first_m;
        if (left <= 0 || N % 8 != 0 || left > rows * stacks_n) return;
        const int k = left / rows, low = left % rows;
        top = rows - low;
        top_start = (stacks_n - k) * stack_cols;
        low_start = top_start - stack_cols;
        cut(top_start, N, top_pieces, top_width);
        cut(low_start, N, low_pieces, low_width);
        n = N;
        const int total = top * top_pieces + low * low_pieces;
        if (total <= clusters) units = total;
    }
    // Piece t: its band (0 = the last group's first stack row), first column and width.
    __device__ void piece(int t, int& band, int& n0, int& width) const {
        const bool in_top = t < top * top_pieces;
        const int i = in_top ? t : t - top * top_pieces, per_band = in_top ? top_pieces : low_pieces;
        const int w = in_top ? top_width : low_width;
        band = in_top ? i / per_band : top + i / per_band;
        n0 = (in_top ? top_start : low_start) + (i % per_band) * w;
        width = max(0, min(w, n - n0));
    }
};
