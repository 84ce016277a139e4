"""Inventory of AWS's NKI API for both generations: pure data the front end iterates.

API[generation][module][name] is an Entry(kind, signature, summary) (trnsim_nki.api_entry).
Generations: "current" (NKI 0.x, `import nki`) and "legacy" ("Beta 1", `import neuronxcc.nki`).
The names are every public name of AWS's API reference (aws-neuron/aws-neuron-sdk, REFERENCE
below) at SDK 2.32 for the current generation and SDK 2.26 (commit 0521004c, the last release
documenting neuronxcc.nki) for the legacy one; docs/nki.md#coverage has one row per entry,
named ROW_PREFIX[module] + "." + name ("nl.add", "legacy.nl.load"), with its status.
"""

from trnsim_nki import api_names_current_isa as _current_isa
from trnsim_nki import api_names_current_nl as _current_nl
from trnsim_nki import api_names_legacy_isa as _legacy_isa
from trnsim_nki import api_names_legacy_nl as _legacy_nl

GENERATIONS = ("current", "legacy")

# The import a kernel writes for each module, and the prefix of its rows in docs/nki.md.
ROW_PREFIX = {
    "nki": "nki",
    "nki.language": "nl",
    "nki.isa": "nisa",
    "nki.collectives": "ncc",
    "nki.typing": "nt",
    "neuronxcc.nki": "legacy.nki",
    "neuronxcc.nki.language": "legacy.nl",
    "neuronxcc.nki.isa": "legacy.nisa",
    "neuronxcc.nki.compiler": "legacy.ncc",
    "neuronxcc.nki.typing": "legacy.nt",
}

# Where each module's names and signatures come from, in aws-neuron/aws-neuron-sdk.
REFERENCE = {
    "nki": "nki/api/nki/__init__.py; Kernel: nki/get-started/about/lnc.rst, "
           "nki/guides/how-to-scheduling-apis.rst",
    "nki.language": "nki/api/nki/language/__init__.py, nki/api/nki.language.rst, "
                    "nki/api/nki.language.tile_size.rst",
    "nki.isa": "nki/api/nki/isa/__init__.py, nki/api/nki.isa.rst",
    "nki.collectives": "nki/api/nki/collectives/__init__.py, nki/api/nki.collectives.rst",
    "nki.typing": "nki/migration/index.rst (NKI 0.3.0)",
    "neuronxcc.nki": "general/nki/api/nki/__init__.py @ 0521004c",
    "neuronxcc.nki.language": "general/nki/api/nki/language/__init__.py @ 0521004c",
    "neuronxcc.nki.isa": "general/nki/api/nki/isa/__init__.py @ 0521004c",
    "neuronxcc.nki.compiler": "general/nki/api/nki/compiler/{__init__,sbuf,psum}.py @ 0521004c",
    "neuronxcc.nki.typing": "general/nki/api/nki.errors.rst @ 0521004c",
}

TARGETS = ("trn2", "trn3")

# nl.tile_size per target (NEURON_PLATFORM_TARGET_OVERRIDE). Sources: pmax, psum_fmax,
# gemm_*_fmax, bn_stats_fmax, *_min_align and total_available_sbuf_size (usable SBUF bytes per
# partition: 212984 on NeuronCore-v3, 245752 on v4) are leanprover/KLR KLR/Trace.lean @ 7ccd18c;
# psum_bank_fmax 512 fp32 = 2 KiB bank, 8 banks: nki/get-started/about/tiling-overview.rst and
# the NKI 0.2.0 migration notes (16 KiB PSUM partition of 8 banks); psum_num_banks is 7 instead
# when NKI_DMA_TRANSPOSE_AS_PE_TRANSPOSE=true (nki/api/nki.language.tile_size.rst);
# sbuf_fmax_bytes equals total_available_sbuf_size (release notes, 2.30) and sbuf_fmax is it in
# fp32 elements. sbuf_size_bytes: assumption, the physical capacity, 128 x 224 KiB (trn2) and
# 128 x 256 KiB (trn3) (nki/guides/architecture/trainium{2,3}_arch.rst); the reference does not
# say whether it counts the compiler's reserved bytes.
TILE_SIZE = {
    "trn2": {
        "pmax": 128,
        "psum_fmax": 512,
        "psum_bank_fmax": 512,
        "psum_bank_fmax_bytes": 2048,
        "gemm_stationary_fmax": 128,
        "gemm_moving_fmax": 512,
        "bn_stats_fmax": 512,
        "psum_min_align": 4,
        "sbuf_min_align": 1,
        "psum_num_banks": 8,
        "sbuf_size_bytes": 29360128,
        "sbuf_fmax_bytes": 212984,
        "sbuf_fmax": 53246,
        "total_available_sbuf_size": 212984,
    },
    "trn3": {
        "pmax": 128,
        "psum_fmax": 512,
        "psum_bank_fmax": 512,
        "psum_bank_fmax_bytes": 2048,
        "gemm_stationary_fmax": 128,
        "gemm_moving_fmax": 512,
        "bn_stats_fmax": 512,
        "psum_min_align": 4,
        "sbuf_min_align": 1,
        "psum_num_banks": 8,
        "sbuf_size_bytes": 33554432,
        "sbuf_fmax_bytes": 245752,
        "sbuf_fmax": 61438,
        "total_available_sbuf_size": 245752,
    },
}

API = {
    "current": {
        "nki": _current_isa.NKI,
        "nki.language": _current_nl.LANGUAGE,
        "nki.isa": _current_isa.ISA,
        "nki.collectives": _current_isa.COLLECTIVES,
        "nki.typing": _current_isa.TYPING,
    },
    "legacy": {
        "neuronxcc.nki": _legacy_isa.NKI,
        "neuronxcc.nki.language": _legacy_nl.LANGUAGE,
        "neuronxcc.nki.isa": _legacy_isa.ISA,
        "neuronxcc.nki.compiler": _legacy_isa.COMPILER,
        "neuronxcc.nki.typing": _legacy_isa.TYPING,
    },
}
