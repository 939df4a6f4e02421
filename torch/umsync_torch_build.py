#!/usr/bin/env python3
"""Builds (or loads, when up to date) the umsync PyTorch example extension.

    python3 torch/umsync_torch_build.py release|debug    # builds into build/torch/<variant>

Two variants: release, and debug (UMSYNC_DEBUG: umsync's ordering checker on). Each is its own
module (umsync_torch_ext_release, umsync_torch_ext_debug) with its own build directory, so both
build at once and load into one process. torch.utils.cpp_extension.load adds its own nvcc flags
(-D__CUDA_NO_HALF_OPERATORS__ and the other three, --expt-relaxed-constexpr, -fPIC, the
architecture of the visible GPU) and passes -std=c++17 unless a -std flag is given: umsync needs
-std=c++20, given here for nvcc and the host compiler (docs/torch.md).
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, 'torch', 'umsync_torch_ext.cu')
VARIANTS = ('release', 'debug')


def build_dir(variant):
    return os.path.join(ROOT, 'build', 'torch', variant)


def flags(variant):
    cuda = ['-std=c++20', '-O2']
    if variant == 'debug':
        cuda.append('-DUMSYNC_DEBUG')
    return cuda


def load(variant, verbose=False):
    """The extension module of `variant`, built first when its sources changed."""
    if variant not in VARIANTS:
        raise ValueError(f'variant is one of {VARIANTS}, not {variant!r}')
    import torch
    from torch.utils import cpp_extension

    if 'TORCH_CUDA_ARCH_LIST' not in os.environ and torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        os.environ['TORCH_CUDA_ARCH_LIST'] = f'{major}.{minor}'
    os.makedirs(build_dir(variant), exist_ok=True)
    extra_cuda = flags(variant)
    return cpp_extension.load(
        name=f'umsync_torch_ext_{variant}',
        sources=[SOURCE],
        extra_cflags=['-std=c++20', '-O2'] + (['-DUMSYNC_DEBUG'] if variant == 'debug' else []),
        extra_cuda_cflags=extra_cuda,
        extra_include_paths=[os.path.join(ROOT, 'include')],
        build_directory=build_dir(variant),
        verbose=verbose,
    )


def main(argv):
    variants = argv[1:] or list(VARIANTS)
    for variant in variants:
        start = time.monotonic()
        load(variant, verbose=True)
        print(f'umsync torch extension {variant}: built and loaded in {time.monotonic() - start:.1f} s', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
