"""From a finished trace to NEFF bytes, through trnsim's C++ kernel builder.

  1. alloc.allocate places every on-chip storage;
  2. HBM storages become NEFF variables: the kernel's array arguments (inputs, in argument
     order), what it returns (outputs, in return order), and scratch (tmp-buf);
  3. each core's instructions are lowered to the ISA text form (docs/isa.md §10) and appended
     to their engine streams with the builder, which parses and validates each one;
  4. deps.compute's (consumer, producer) pairs go to the builder, which turns them into
     semaphores when it builds (tools/kernel_builder/sync.h);
  5. the builder encodes the streams (finish(), which reports where each instruction ended up:
     it inserts sem_waits before some consumers) and writes the NEFF; with it goes
     `kernel_debug_info.json`, mapping every instruction (its final position in its engine's
     stream, the pc a profile shows) to the kernel's file and line.

There is one encoding path: the builder's. Errors from it (an instruction the ISA refuses)
come back as NkiError at the kernel line that made the instruction.
"""

import json
import os

from trnsim_nki import alloc, deps, loops
from trnsim_nki.errors import NkiError, NkiValueError
from trnsim_nki.lower import ap_text, footprint
from trnsim_nki.native import native

DEBUG_INFO_MEMBER = "kernel_debug_info.json"


def build(trace, name):
    """NEFF bytes for a finished trace."""
    mod = native()
    loops.prepare(trace)  # register loops: body tiles live for the whole loop
    alloc.allocate(trace)
    kb = mod.KernelBuilder(name, trace.chip, trace.lnc)
    _declare_variables(kb, trace)
    semaphores = {}
    for symbol in trace.semaphores:
        ids = {kb.alloc_semaphore(core) for core in range(trace.lnc)}
        if len(ids) != 1:
            raise NkiError(f"internal: semaphore {symbol} differs between cores: {ids}")
        semaphores[symbol] = ids.pop()
    peers = _peer_storages(trace)
    debug = []
    for core, instrs in enumerate(trace.cores):
        _mark_last_matmuls(instrs)
        if loops.uses_control(trace, core):  # register loops: streams and semaphores by hand
            from trnsim_nki import loop_emit
            debug.extend(loop_emit.emit_core(kb, trace, core,
                                             lambda i: _text(i, semaphores, peers)))
            continue
        pairs = deps.compute(instrs)
        for instr in instrs:
            text = _text(instr, semaphores, peers)
            try:
                if instr.prefix is not None:
                    src = ap_text(instr.operands[0].tensor, instr.api)
                    instr.index = kb.debug_print(core, instr.engine, instr.prefix, src)
                else:
                    instr.index = kb.emit(core, instr.engine, text)
            except mod.TrnsimError as e:
                raise NkiError(f"{instr.api}: the ISA refuses the instruction: {e}\n  {text}",
                               location=instr.loc) from None
            debug.append({"core": core, "engine": instr.engine, "index": instr.index,
                          "opcode": _mnemonic(instr.opcode), "api": instr.api,
                          "file": instr.loc[0], "line": instr.loc[1]})
        for consumer, producer in pairs:
            kb.depend((core, consumer.engine, consumer.index),
                      (core, producer.engine, producer.index))
    try:
        positions = kb.finish()
        # Final stream positions: the builder inserts sem_waits before some consumers.
        for entry in debug:
            entry["index"] = positions[(entry["core"], entry["engine"])][entry["index"]]
        kb.add_member(DEBUG_INFO_MEMBER, json.dumps(
            {"kernel": name, "instructions": debug}, separators=(",", ":")).encode())
        return kb.build()
    except mod.TrnsimError as e:
        raise NkiError(f"building the kernel's NEFF failed: {e}") from None


def _mnemonic(opcode):
    """The ISA mnemonic of an instruction's opcode text, `{ wait X cmp v } mnemonic [...]`
    (docs/isa.md §10.1): what a profile records as the instruction's opcode."""
    tokens = opcode.split()
    i = 0
    while i < len(tokens) and tokens[i] == "wait":
        i += 4
    return tokens[i] if i < len(tokens) else opcode


def _declare_variables(kb, trace):
    used = set()

    def unique(base, fallback):
        base = base or fallback
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}_{n}"
        used.add(candidate)
        return candidate

    for s in trace.hbm_args:
        s.var_name = unique(s.name, "in")
        s.var_id = kb.add_input(s.var_name, s.dtype.isa, list(s.shape))
    for i, s in enumerate(trace.outputs):
        s.var_name = unique(s.name, f"out{i}")
        s.var_id = kb.add_output(s.var_name, s.dtype.isa, list(s.shape))
    for s in trace.storages:
        if s.kind != "hbm" or s.var_id is not None:
            continue
        if s.role == "constant":
            s.var_id = kb.add_constant(unique(s.name, "const"), s.dtype.isa, list(s.shape),
                                       s.constant)
        elif s.first_use is not None:
            # shared_hbm scratch is one buffer for every core of the launch; hbm/private_hbm
            # is each program's own (a subgraph's tmp-buf).
            declare = kb.add_shared if s.buffer.name == "shared_hbm" else kb.add_scratch
            s.var_id = declare(unique(s.name, "scratch"), max(s.nbytes, 1))


def _peer_storages(trace):
    by_key = {}
    for s in trace.storages:
        if s.on_chip:
            by_key[(s.core, s.site, s.site_ordinal)] = s
    return by_key


def _text(instr, semaphores, peers):
    parts = [instr.opcode]
    for op in instr.operands:
        key = op.key
        if key is None:
            continue
        view = op.tensor
        if instr.peer_dst and key == "dst":
            view = _peer_view(view, peers, instr)
        parts.append(f"{key}={ap_text(view, f'{instr.api} {key}', op.split)}")
    parts.extend(instr.fields)
    text = " ".join(parts)
    if "@" in text:
        for symbol in sorted(semaphores, key=len, reverse=True):
            text = text.replace(symbol, str(semaphores[symbol]))
    return text


def _peer_view(view, peers, instr):
    s = view.storage
    peer = peers.get((1 - s.core, s.site, s.site_ordinal))
    if peer is None or peer.shape != s.shape or peer.dtype is not s.dtype:
        raise NkiValueError(f"{instr.api}: the peer core's program made no tile like "
                            f"{s!r} at {os.path.basename(s.site[0])}:{s.site[1]}; both cores "
                            "must allocate dst the same way", location=instr.loc)
    # Same view, the peer's storage (its own offset).
    from trnsim_nki.tensor import Tensor
    return Tensor(peer, dtype=view.dtype, shape=view.shape, strides=view.strides,
                  byte_offset=view.byte_offset, part_start=view.part_start)


def _mark_last_matmuls(instrs):
    """multiply_moving's `last` flag: the final matmul of an accumulation group, the one before
    its PSUM region is read by anything else or overwritten by a new group."""
    pending = {}  # storage ident -> [(footprint, instr)]
    for instr in instrs:
        is_mm = instr.opcode == "multiply_moving"
        for op in instr.operands:
            s = op.tensor.storage
            if s.kind != "psum":
                continue
            fp = footprint(op.tensor)
            open_groups = pending.get(s.ident)
            if not open_groups:
                if is_mm and op.write:
                    pending.setdefault(s.ident, []).append((fp, instr))
                continue
            keep = []
            for gfp, ginstr in open_groups:
                overlaps = gfp[0] < fp[1] and fp[0] < gfp[1] and gfp[2] < fp[3] and fp[2] < gfp[3]
                if not overlaps:
                    keep.append((gfp, ginstr))
                elif is_mm and op.write and "accumulate" in instr.fields:
                    continue  # the group goes on; this matmul is its newest member
                else:
                    ginstr.fields.append("last")
            if is_mm and op.write:
                keep.append((fp, instr))
            pending[s.ident] = keep
    for groups in pending.values():
        for _, instr in groups:
            instr.fields.append("last")
