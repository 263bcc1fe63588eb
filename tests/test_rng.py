"""Random streams: Philox4x32-10 as published, streams that never share a sequence, and no
visible dependence between adjacent streams (playouts, lanes) on millions of draws."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from kernels.rng import (
    STREAM_LANE,
    new_state,
    new_states,
    next_u64,
    philox,
    seed_lane,
    stream_at,
    stream_block,
    stream_states,
)

U = np.uint64


@pytest.mark.parametrize("counter, key, expected", [
    # Random123's known-answer vectors for philox4x32_10 (kat_vectors)
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox_matches_the_published_vectors(counter, key, expected):
    a, b = philox(*(U(c) for c in counter), U(key[0] | (key[1] << 32)))
    words = (int(a) >> 32, int(a) & 0xFFFFFFFF, int(b) >> 32, int(b) & 0xFFFFFFFF)
    assert words == expected


@njit
def draws(seed, first, streams, lane_step, per_stream):
    """out[i, j]: draw j of stream (seed, first + i, 0) (lane_step = 0) or of stream
    (seed, first, i) (lane_step = 1)."""
    out = np.zeros((streams, per_stream), np.uint64)
    st = new_state(8)
    for i in range(streams):
        if lane_step:
            seed_lane(st, np.uint64(seed), first, i)
        else:
            seed_lane(st, np.uint64(seed), first + i, 0)
        for j in range(per_stream):
            out[i, j] = next_u64(st)
    return out


def test_block_and_resume_give_the_streams_draws():
    st = new_state(8)
    seed_lane(st, np.uint64(11), 5, STREAM_LANE)  # seeds are uint64, as in the kernels
    seq = [next_u64(st) for _ in range(5)]
    a, b = stream_block(np.uint64(11), 5, STREAM_LANE, 0)
    assert [a, b] == seq[:2]
    for used in (0, 1, 2):
        stream_at(st, np.uint64(11), 5, STREAM_LANE, used, np.uint64(b))
        assert [next_u64(st) for _ in range(5 - used)] == seq[used:]


@pytest.mark.parametrize("lane_step", [0, 1])
def test_streams_never_share_draws(lane_step):
    x = draws(3, 10**12, 2000, lane_step, 500)  # a million 64-bit draws
    assert np.unique(x).size == x.size


def test_the_key_separates_seeds():
    a = draws(1, 0, 200, 0, 200)
    b = draws(2, 0, 200, 0, 200)
    assert np.intersect1d(a, b).size == 0


@pytest.mark.parametrize("lane_step", [0, 1])
def test_adjacent_streams_are_uncorrelated(lane_step):
    x = draws(7, 123, 4001, lane_step, 500)
    u = (x >> U(11)).astype(np.float64) / 2.0**53
    # stream i against stream i + 1, draw by draw: 2 million pairs
    r = np.corrcoef(u[:-1].ravel(), u[1:].ravel())[0, 1]
    assert abs(r) < 4.5 / np.sqrt(u[:-1].size)  # about 4.5 standard errors
    # the same draw index across all streams
    r0 = np.corrcoef(u[:-1, 0], u[1:, 0])[0, 1]
    assert abs(r0) < 4.5 / np.sqrt(u.shape[0] - 1)


@pytest.mark.parametrize("lane_step", [0, 1])
def test_frequency_and_serial_tests_pass(lane_step):
    x = draws(99, 7, 4000, lane_step, 500)
    # frequency: the top 8 bits in 256 cells; bit 0 in 2 cells
    for cells in ((x >> U(56)).ravel(), (x & U(0xFF)).ravel()):
        counts = np.bincount(cells.astype(np.int64), minlength=256)
        assert stats.chisquare(counts).pvalue > 1e-4
    # serial: consecutive pairs of 4-bit values (draws within a stream, and the first draw
    # of adjacent streams) in 256 cells
    hi = (x >> U(60)).astype(np.int64)
    within = np.bincount((hi[:, :-1] * 16 + hi[:, 1:]).ravel(), minlength=256)
    across = np.bincount((hi[:-1, 0] * 16 + hi[1:, 0]).ravel(), minlength=256)
    assert stats.chisquare(within).pvalue > 1e-4
    assert stats.chisquare(across).pvalue > 1e-4
    # every bit position is set half the time
    bits = np.array([((x >> U(b)) & U(1)).mean() for b in range(64)])
    assert np.all(np.abs(bits - 0.5) < 5 * 0.5 / np.sqrt(x.size))


@pytest.mark.parametrize("faces", [0, 5, 6, 8, 12])
@pytest.mark.parametrize("lanes", [1, 3])
def test_stream_states_made_in_python_are_the_compiled_ones(faces, lanes):
    # the games make their streams with numpy (no compiled entry); the compiled
    # allocation is the reference
    made = stream_states(faces, lanes)
    assert made.dtype == np.uint64 and made.flags.c_contiguous and made.flags.writeable
    assert np.array_equal(made, new_states(faces, lanes))
