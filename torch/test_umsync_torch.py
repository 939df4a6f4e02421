#!/usr/bin/env python3
"""Tests of umsync/torch.hpp through the example extension (torch/umsync_torch_ext.cu).

    pytest -q torch/test_umsync_torch.py        # or, without pytest:
    python3 torch/test_umsync_torch.py          # the same tests, a small built-in runner

Needs PyTorch with CUDA and a GPU; without them every test is skipped, with the reason. The
extension is built on first use (torch/umsync_torch_build.py: release and debug variants, in
build/torch/). UMSYNC_TORCH_REPORT names a file the timing lines are appended to.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import pytest
except ImportError:  # the built-in runner below
    pytest = None


class Skipped(Exception):
    pass


def skip(reason):
    if pytest is not None:
        pytest.skip(reason)
    raise Skipped(reason)


try:
    import torch
    if getattr(torch, '__file__', None) is None:  # only a folder named torch (this one's parent) was found
        raise ImportError('no PyTorch package')
    HAVE_GPU = torch.cuda.is_available()
    WHY_NOT = '' if HAVE_GPU else 'torch.cuda.is_available() is False (no GPU, or a CPU build of torch)'
except ImportError:
    torch = None
    HAVE_GPU = False
    WHY_NOT = 'PyTorch is not installed'

if pytest is not None and not HAVE_GPU:
    pytest.skip(WHY_NOT, allow_module_level=True)

_modules = {}


def ext(variant='release'):
    if not HAVE_GPU:
        skip(WHY_NOT)
    if variant not in _modules:
        import umsync_torch_build
        _modules[variant] = umsync_torch_build.load(variant)
    return _modules[variant]


def report(line):
    print(line, flush=True)
    path = os.environ.get('UMSYNC_TORCH_REPORT')
    if path:
        with open(path, 'a') as f:
            f.write(line + '\n')


def raises(call, *fragments):
    """Runs call(); it must raise RuntimeError whose message holds every fragment. Returns it."""
    try:
        call()
    except RuntimeError as error:
        message = str(error)
        for fragment in fragments:
            assert re.search(fragment, message), f'{fragment!r} not in the message: {message}'
        return message
    raise AssertionError(f'no RuntimeError (expected one with {fragments})')


def plain_reference(x):
    return (2 * x + 1) ** 2


# --- results ----------------------------------------------------------------------------------

def test_produce_consume_equals_torch():
    m = ext()
    for n in (1, 1000, 1 << 20, 3_000_017):
        x = torch.randn(n, device='cuda')
        out = m.produce_consume(x)
        torch.testing.assert_close(out, plain_reference(x))


def test_produce_consume_debug_build_equals_torch():
    m = ext('debug')
    assert m.is_debug()
    m.reset_debug()
    x = torch.randn(1 << 16, device='cuda')
    torch.testing.assert_close(m.produce_consume(x), plain_reference(x))
    m.reset_debug()


def test_pinned_staging():
    m = ext()
    host = torch.arange(1 << 20, dtype=torch.float32).pin_memory()
    device = torch.empty(1 << 20, device='cuda')
    m.stage_h2d(host, device)
    torch.cuda.synchronize()
    assert torch.equal(device.cpu(), host)


# --- the caching allocator's cross-stream hazard ----------------------------------------------

HAZARD_N = 3_000_017  # its own size class: the freed block is the only one the next allocation fits
SPIN_NS = 50_000_000  # the side stream's reader starts 50 ms late


def run_hazard(m, mode):
    torch.cuda.synchronize()
    torch.cuda.empty_cache()  # no other free block of this size in the pool
    result, reused = m.hazard(HAZARD_N, mode, SPIN_NS)
    torch.cuda.synchronize()
    wrong = int((result != 1.0).sum().item())
    return wrong, reused


def test_hazard_without_edge_reads_the_new_tensor():
    m = ext()
    wrong, reused = run_hazard(m, 0)
    report(f'hazard, no edge: freed block reused by the next allocation: {reused}; '
           f'{wrong} of {HAZARD_N} elements read wrong by the side stream')
    assert reused, 'the caching allocator did not hand the freed block out again: hazard not reproduced'
    assert wrong > 0, 'the side stream read the old values although its tensor was freed and reused'


def test_hazard_absent_with_loan():
    m = ext()
    wrong, reused = run_hazard(m, 1)
    report(f'hazard, umsync::torch::loan (edge back before the free): block reused: {reused}; '
           f'{wrong} of {HAZARD_N} wrong')
    assert wrong == 0


def test_hazard_absent_with_keep_alive_on():
    m = ext()
    wrong, reused = run_hazard(m, 2)
    report(f'hazard, umsync::torch::keep_alive_on (record_stream): block reused: {reused}; '
           f'{wrong} of {HAZARD_N} wrong')
    assert wrong == 0


# --- UMSYNC_DEBUG: the ordering checker sees tensor uses -----------------------------------------

SITE = r'umsync_torch_ext\.cu:(\d+)'


def test_debug_reports_unordered_tensor_use_with_both_sites():
    m = ext('debug')
    m.reset_debug()
    x = torch.zeros(1 << 16, device='cuda')
    message = raises(lambda: m.unordered_use(x), 'unordered access', SITE)
    torch.cuda.synchronize()
    lines = set(re.findall(SITE, message))
    assert len(lines) == 2, f'both call sites must be named: {message}'
    report(f'debug build, unordered tensor use: {message}')
    m.reset_debug()


def test_debug_reports_the_allocator_hazard():
    m = ext('debug')
    m.reset_debug()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    message = raises(lambda: m.hazard(HAZARD_N, 0, 1_000_000), 'unordered access', SITE)
    torch.cuda.synchronize()
    assert len(set(re.findall(SITE, message))) == 2, message
    report(f'debug build, tensor freed and reused without an edge: {message}')
    m.reset_debug()
    for mode in (1, 2):  # the two fixes pass the checker
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        result, _ = m.hazard(HAZARD_N, mode, 1_000_000)
        torch.cuda.synchronize()
        assert bool((result == 1.0).all())
        m.reset_debug()


def test_release_build_reports_nothing():
    m = ext()
    assert not m.is_debug()
    x = torch.zeros(1 << 16, device='cuda')
    m.unordered_use(x)
    torch.cuda.synchronize()


# --- bad input: a clear error, nothing leaked ---------------------------------------------------

def check_no_leak(call, *fragments):
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    message = raises(call, *fragments)
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() == before, 'memory leaked by a refused call'
    return message


def test_wrong_dtype():
    m = ext()
    x = torch.ones(100, device='cuda', dtype=torch.float64)
    check_no_leak(lambda: m.produce_consume(x), 'umsync: ', "dtype is Double, not Float", r'device cuda:\d',
                  r'strides \[1\]')


def test_non_contiguous():
    m = ext()
    x = torch.ones(64, 64, device='cuda').t()
    check_no_leak(lambda: m.produce_consume(x), 'not contiguous', r'strides \[1, 64\]')


def test_cpu_tensor_where_device_is_required():
    m = ext()
    x = torch.ones(100)
    check_no_leak(lambda: m.produce_consume(x), 'a CUDA tensor is required', 'device cpu', 'pageable')


def test_pageable_cpu_tensor_refused_for_async_copy():
    m = ext()
    host = torch.ones(100)
    device = torch.empty(100, device='cuda')
    check_no_leak(lambda: m.stage_h2d(host, device), 'pageable, not pinned', 'device cpu')


def test_tensor_on_another_device():
    m = ext()
    if torch.cuda.device_count() < 2:
        skip('needs two GPUs')
    x = torch.ones(100, device='cuda:1')
    with torch.cuda.device(0):
        check_no_leak(lambda: m.produce_consume(x), 'stream belongs to cuda:0', 'device cuda:1')


def test_stream_of_another_device():
    m = ext()
    if torch.cuda.device_count() < 2:
        skip('needs two GPUs')
    x = torch.ones(100, device='cuda:0')
    check_no_leak(lambda: m.span_on_device(x, 1), 'stream of another device', 'device cuda:0')


# --- timing ---------------------------------------------------------------------------------------

def plain_torch_side_stream(m, x, side):
    """The same kernels, in plain torch: a side stream, record_stream, wait_stream."""
    current = torch.cuda.current_stream()
    mid = torch.empty_like(x)
    out = torch.empty_like(x)
    side.wait_stream(current)
    with torch.cuda.stream(side):
        m.raw_produce(x, mid)
    x.record_stream(side)
    mid.record_stream(side)
    current.wait_stream(side)
    m.raw_consume(mid, out)
    return out


def time_per_call(call, repeats):
    for _ in range(10):
        call()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        call()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeats * 1e6


def test_timing_umsync_vs_plain_torch():
    m = ext()
    side = torch.cuda.Stream()
    for n in (1 << 12, 1 << 24):
        x = torch.randn(n, device='cuda')
        torch.testing.assert_close(plain_torch_side_stream(m, x, side), m.produce_consume(x))
        repeats = 2000 if n < (1 << 20) else 200
        umsync_us = time_per_call(lambda: m.produce_consume(x), repeats)
        plain_us = time_per_call(lambda: plain_torch_side_stream(m, x, side), repeats)
        report(f'timing, n={n}: umsync loan op {umsync_us:.1f} us/call, plain torch (side stream + record_stream) '
               f'{plain_us:.1f} us/call, ratio {umsync_us / plain_us:.2f}')


# --- the built-in runner --------------------------------------------------------------------------

def main():
    tests = [(name, value) for name, value in globals().items() if name.startswith('test_') and callable(value)]
    passed = failed = skipped = 0
    for name, test in tests:
        start = time.monotonic()
        try:
            test()
        except Skipped as why:
            skipped += 1
            print(f'SKIP {name}: {why}', flush=True)
            continue
        except Exception as error:  # noqa: BLE001 - a test runner reports every failure
            failed += 1
            print(f'FAIL {name}: {type(error).__name__}: {error}', flush=True)
            continue
        passed += 1
        print(f'PASS {name} ({time.monotonic() - start:.2f} s)', flush=True)
    print(f'{passed} passed, {failed} failed, {skipped} skipped')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
