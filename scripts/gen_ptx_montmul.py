#!/usr/bin/env python3
"""Generates kernels/src/ff/ptx_montmul.rs: Montgomery multiplication for the
nvptx build as one inline-PTX block per field, on 32-bit words with
mad.lo.cc / madc.hi.cc carry chains (the hardware multiplies 32x32 bits).

Scheme (CIOS over 32-bit words, n words). The running value is V = X + Y*2^32:
products a[j]*b_i with even j go to X at word j, odd j to Y at word j-1, so
the lo/hi halves of one chain never overlap and each chain is a single run of
carries. Per word b_i: X += A_even*b_i, Y += A_odd*b_i, m = X[0]*(-p^-1),
X += P_even*m, Y += P_odd*m; now X[0] = 0 and V/2^32 = (Y + X[1]) +
X[2..]*2^32. That shift is folded into the next word's odd-product chain
(which reads X[2..] as its addends and writes them two words down), so it
costs one addition, not a carry chain. Every carry chain lives inside the one
asm block, so no compiler instruction can land between a .cc and the addc
that reads it. Result < 2p (a, b < p), then one conditional subtraction.

Run: python3 scripts/gen_ptx_montmul.py > kernels/src/ff/ptx_montmul.rs
(`--selftest` runs the generated PTX in a Python emulator against big-integer arithmetic.)
"""

FIELDS = {
    # name: (u64 limbs of the modulus, -p^-1 mod 2^64)
    "fr": ([0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48], 0xfffffffeffffffff),
    "fp": ([0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624, 0x64774b84f38512bf,
            0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a], 0x89f3fffcfffcfffd),
}


def words32(limbs):
    out = []
    for l in limbs:
        out += [l & 0xFFFFFFFF, l >> 32]
    return out


def gen_mul(name, limbs, inv):
    n = 2 * len(limbs)
    p = words32(limbs)
    m0 = inv & 0xFFFFFFFF
    ops, regs = [], []

    def new():
        r = f"cz{len(regs)}"
        regs.append(r)
        return r

    A = [f"{{a{i}}}" for i in range(n)]
    B = [f"{{b{i}}}" for i in range(n)]
    P = [f"0x{w:08x}" for w in p]
    X = [new() for _ in range(n + 1)]
    Y = [new() for _ in range(n + 1)]
    m = new()

    def chain(acc, src, mult, odd):
        first = True
        for j in range(1 if odd else 0, n, 2):
            pos = j - 1 if odd else j
            c = "" if first else "c"
            if src[j] == "0x00000001":
                # A modulus word of 1 (r's lowest): the product is just `mult`.
                ops.append(f"add{c}.cc.u32 {acc[pos]}, {acc[pos]}, {mult};")
                ops.append(f"addc.cc.u32 {acc[pos + 1]}, {acc[pos + 1]}, 0;")
            else:
                ops.append(f"mad{c}.lo.cc.u32 {acc[pos]}, {mult}, {src[j]}, {acc[pos]};")
                ops.append(f"madc.hi.cc.u32 {acc[pos + 1]}, {mult}, {src[j]}, {acc[pos + 1]};")
            first = False
        ops.append(f"addc.u32 {acc[n]}, {acc[n]}, 0;")

    for i in range(n):
        if i == 0:
            for j in range(n):
                acc, pos = (X, j) if j % 2 == 0 else (Y, j - 1)
                ops.append(f"mul.lo.u32 {acc[pos]}, {B[0]}, {A[j]};")
                ops.append(f"mul.hi.u32 {acc[pos + 1]}, {B[0]}, {A[j]};")
            ops.append(f"mov.u32 {X[n]}, 0;")
            ops.append(f"mov.u32 {Y[n]}, 0;")
        else:
            # Divide the previous row by 2^32 while accumulating: X[0] is 0,
            # X[1] joins Y at word 0 (Y becomes the even accumulator), and
            # X[2..] slides down two words to become the odd accumulator, in
            # the same carry chain that adds the odd products. The carry of
            # the word-0 addition enters that chain at word 1, where it belongs.
            ops.append(f"add.cc.u32 {Y[0]}, {Y[0]}, {X[1]};")
            for j in range(1, n, 2):
                pos = j - 1
                lo_src = X[pos + 2] if pos + 2 <= n else "0"
                hi_src = X[pos + 3] if pos + 3 <= n else "0"
                ops.append(f"madc.lo.cc.u32 {X[pos]}, {B[i]}, {A[j]}, {lo_src};")
                ops.append(f"madc.hi.cc.u32 {X[pos + 1]}, {B[i]}, {A[j]}, {hi_src};")
            ops.append(f"addc.u32 {X[n]}, 0, 0;")
            X, Y = Y, X
            chain(X, A, B[i], odd=False)
        ops.append(f"mul.lo.u32 {m}, {X[0]}, 0x{m0:08x};")
        chain(X, P, m, odd=False)
        chain(Y, P, m, odd=True)

    # V = X + Y*2^32 with X[0] = 0, V < 2p*2^32: result word k = X[k+1] + Y[k].
    R = [None] + X[1:]
    ops.append(f"add.cc.u32 {R[1]}, {R[1]}, {Y[0]};")
    for k in range(2, n):
        ops.append(f"addc.cc.u32 {R[k]}, {R[k]}, {Y[k - 1]};")
    ops.append(f"addc.u32 {R[n]}, {R[n]}, {Y[n - 1]};")
    R = R[1:]
    S = Y  # free now
    ops.append(f"sub.cc.u32 {S[0]}, {R[0]}, {P[0]};")
    for k in range(1, n):
        ops.append(f"subc.cc.u32 {S[k]}, {R[k]}, {P[k]};")
    ops.append(f"subc.u32 {m}, 0, 0;")
    ops.append(f"setp.eq.u32 czp, {m}, 0;")
    for k in range(n):
        ops.append(f"selp.u32 {{r{k}}}, {S[k]}, {R[k]}, czp;")

    decl = f".reg .u32 {', '.join(regs)};"
    lines = ["{{", decl, ".reg .pred czp;"] + ops + ["}}"]
    template = ",\n            ".join(f'"{l}"' for l in lines)
    ins = "".join(f"\n            a{i} = in(reg32) a[{i}],\n            b{i} = in(reg32) b[{i}]," for i in range(n))
    outs = "".join(f"\n            r{i} = out(reg32) r[{i}]," for i in range(n))
    l64 = len(limbs)
    return f'''
/// Montgomery product for `{name}` on 32-bit words (see the module docs).
#[inline(always)]
pub fn {name}_mont_mul(a: &[u64; {l64}], b: &[u64; {l64}]) -> [u64; {l64}] {{
    let a: [u32; {n}] = split(a);
    let b: [u32; {n}] = split(b);
    let mut r = [0u32; {n}];
    // SAFETY: pure register arithmetic; every output is written.
    unsafe {{
        core::arch::asm!(
            {template},{ins}{outs}
            options(pure, nomem, nostack),
        );
    }}
    join(&r)
}}
'''


HEADER = '''//! GENERATED by scripts/gen_ptx_montmul.py; edit the generator, not this file.
//!
//! Montgomery multiplication for the nvptx build as one inline-PTX block per
//! field: CIOS over 32-bit words with `mad.lo.cc`/`madc.hi.cc` carry chains,
//! products of even and odd words kept in two accumulators so each chain runs
//! without overlap. The host build uses the generic u64 CIOS instead; both
//! are checked against blstrs (the host in CI, this one on the GPU).

#[inline(always)]
fn split<const N: usize, const M: usize>(a: &[u64; N]) -> [u32; M] {
    let mut out = [0u32; M];
    for i in 0..N {
        out[2 * i] = a[i] as u32;
        out[2 * i + 1] = (a[i] >> 32) as u32;
    }
    out
}

#[inline(always)]
fn join<const N: usize, const M: usize>(w: &[u32; M]) -> [u64; N] {
    let mut out = [0u64; N];
    for i in 0..N {
        out[i] = w[2 * i] as u64 | (w[2 * i + 1] as u64) << 32;
    }
    out
}
'''



def emulate(ops, env):
    """Runs the generated PTX on Python ints (for --selftest)."""
    M = 0xFFFFFFFF
    cf = 0
    val = lambda t: env[t] if t in env else int(t, 0)
    for op in ops:
        ins, rest = op.split(" ", 1)
        args = [a.strip() for a in rest.rstrip(";").split(",")]
        if ins == "mov.u32":
            env[args[0]] = val(args[1])
        elif ins in ("mul.lo.u32", "mul.hi.u32"):
            prod = val(args[1]) * val(args[2])
            env[args[0]] = prod & M if ".lo" in ins else prod >> 32
        elif ins.startswith("mad") :
            prod = val(args[1]) * val(args[2])
            part = prod & M if ".lo" in ins else prod >> 32
            s = part + val(args[3]) + (cf if ins.startswith("madc") else 0)
            env[args[0]] = s & M
            if ".cc" in ins:
                cf = s >> 32
        elif ins.startswith("add"):
            s = val(args[1]) + val(args[2]) + (cf if ins.startswith("addc") else 0)
            env[args[0]] = s & M
            if ".cc" in ins:
                cf = s >> 32
        elif ins.startswith("sub"):
            s = val(args[1]) - val(args[2]) - (cf if ins.startswith("subc") else 0)
            env[args[0]] = s & M
            if ".cc" in ins:
                cf = 1 if s < 0 else 0
        elif ins == "setp.eq.u32":
            env[args[0]] = val(args[1]) == val(args[2])
        elif ins == "selp.u32":
            env[args[0]] = val(args[1]) if env[args[3]] else val(args[2])
        else:
            raise ValueError(op)
    return env


def selftest():
    import random
    for name, (limbs, inv) in FIELDS.items():
        src = gen_mul(name, limbs, inv)
        lines = [l.strip().strip(",").strip('"') for l in src.splitlines()]
        ops = [l.replace("{{", "").replace("}}", "") for l in lines
               if l and l[0].isalpha() and l.endswith(";") and not l.startswith((".reg", "let", "//", "join", "pub", "unsafe", "core"))]
        ops = [o for o in ops if not o.startswith(".")]
        n = 2 * len(limbs)
        p = sum(w << (64 * i) for i, w in enumerate(limbs))
        rinv = pow(2 ** (32 * n), -1, p)
        edges = [0, 1, p - 1, p - 2, 2 ** 64 % p]
        cases = [(x, y) for x in edges for y in edges] + [(random.randrange(p), random.randrange(p)) for _ in range(3000)]
        for x, y in cases:
            env = {}
            for i in range(n):
                env[f"{{a{i}}}"] = (x >> (32 * i)) & 0xFFFFFFFF
                env[f"{{b{i}}}"] = (y >> (32 * i)) & 0xFFFFFFFF
            env = emulate(ops, env)
            got = sum(env[f"{{r{i}}}"] << (32 * i) for i in range(n))
            want = x * y * rinv % p
            assert got == want, (name, hex(x), hex(y), hex(got), hex(want))
        print(f"{name}: {len(cases)} products match, {len(ops)} PTX instructions")


if __name__ == "__main__":
    if __import__("sys").argv[1:] == ["--selftest"]:
        selftest()
    else:
        print(HEADER + "".join(gen_mul(k, *v) for k, v in FIELDS.items()), end="")
