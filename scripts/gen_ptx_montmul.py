#!/usr/bin/env python3
"""Generates kernels/src/ff/ptx_montmul.rs: Montgomery multiplication for the
nvptx build as one inline-PTX block per field, on 32-bit words with
mad.lo.cc / madc.hi.cc carry chains (the hardware multiplies 32x32 bits);
also the modular addition and subtraction (`gen_addsub`).

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

For BLS12-381 r (low words 1 and 2^32 - 1) the reduction uses m = -X0 and
adds the products of those two words without multiplying (`reduce_r_shaped`):
63.7 G mul/s on the H200 against 53.0 for the generic form (docs/PERFORMANCE.md);
add ("fr", "fr_mont_mul_v2", False) to VARIANTS to generate that one again.

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


def gen_mul(name, limbs, inv, fn_name=None, special=True, square=False, lazy=False, terms=1):
    """One asm block. `special`: use the r-shaped reduction (see
    `r_shaped`) when the modulus allows it; False keeps the generic v2 one.

    `lazy`: no final conditional subtraction; a < 2p and b < p are allowed
    and the result is < 2p (congruent to a*b/R): with a < 2p the running
    value stays below 3p*2^32 (n+1 words) and the end value below
    ab/R + p < 2p*p/R + p < 2p, which needs 2p < 2^(32n) (r: 0.91*2^256).

    `terms` (2 or 4, lazy only): a*b + c*d (+ e*f + g*h) with one
    reduction, every operand < 2p. Each round adds the words of all the
    multipliers (b_i, d_i, ...) times their multiplicands, so the running
    value stays below (2*terms + 1)*p*2^32 (Fp, 4 terms: 0.91*2^416, within
    the n+1 words) and the end value below 4*terms*p*p/R + p: 1.81p for two
    terms (< 2p as it is), 2.63p for four, which one conditional
    subtraction of p brings below 2p.

    `square`: a*a with each cross product a_i*a_j (i < j) computed once.
    Round i adds row i, a_i * (a_i, 2a_{i+1}, 2a_{i+2}, ...) at relative
    words i, i+1, ..., instead of a*a_i at words 0.. (a_i*a_j for j < i
    was already added, doubled, by row j). The doubled words come from a
    doubled copy D of a (D[j] = a_j<<1 | a_{j-1}>>31); row i takes a_{i+1}<<1
    for its first one, as a_i's top bit belongs to its own row. The top word
    of 2a is 0 because a < p leaves the top bit of a's top word clear. Word i
    of the running value is complete when round i reduces it (rows k <= i/2
    reach it), and the running value stays below 3p*2^32 (rows up to i add
    less than 2p*2^(32(i+1)), reductions less than p*2^(32(i+1))), so the
    n+1 words of the multiplication suffice. Row i has n - i products, n(n+1)/2
    in all against n^2; the reduction is the multiplication's."""
    n = 2 * len(limbs)
    p = words32(limbs)
    m0 = inv & 0xFFFFFFFF
    fn_name = fn_name or f"{name}_mont_{'sqr' if square else 'mul'}"
    # The doubled copy needs a's top bit clear (a < p with p's top bit clear).
    assert p[-1] < 0x80000000
    r_shaped = special and p[0] == 1 and p[1] == 0xFFFFFFFF
    if r_shaped:
        assert m0 == 0xFFFFFFFF
    regs = []

    def new():
        r = f"cz{len(regs)}"
        regs.append(r)
        return r

    A = [f"{{a{i}}}" for i in range(n)]
    B = A if square else [f"{{b{i}}}" for i in range(n)]
    assert terms in (1, 2, 4) and (terms == 1 or (lazy and not square))
    # The products beyond a*b: (multiplicand, multiplier) words.
    extra = [([f"{{{x}{i}}}" for i in range(n)], [f"{{{y}{i}}}" for i in range(n)])
             for x, y in ["cd", "ef", "gh"][:terms - 1]]
    P = [f"0x{w:08x}" for w in p]
    X = [new() for _ in range(n + 1)]
    Y = [new() for _ in range(n + 1)]
    m = new()
    d = new() if r_shaped else None
    d_scratch = new() if r_shaped else None
    ops = []
    if square:
        D = [None, None] + [new() for _ in range(2, n)]
        lead = new()
        for j in range(2, n):
            ops.append(f"shf.l.wrap.b32 {D[j]}, {A[j - 1]}, {A[j]}, 1;")

    def row(i, j):
        """The multiplicand at relative word j of round i, None for no product."""
        if not square:
            return A[j]
        if j < i:
            return None
        if j == i:
            return A[i]
        if j == i + 1:
            return lead
        return D[j]

    def chain(acc, src, mult, odd):
        # src[j] None: no product at word j (a square's row below its
        # diagonal); a chain without products emits nothing.
        first = True
        for j in range(1 if odd else 0, n, 2):
            if src[j] is None:
                continue
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
        if not first:
            ops.append(f"addc.u32 {acc[n]}, {acc[n]}, 0;")

    def reduce_r_shaped(X, Y):
        # Reduction step for a modulus whose two low words are 1 and
        # 2^32 - 1 (BLS12-381 r), so -p^-1 = 2^32 - 1 and m = -X0 mod 2^32.
        # With c = (X0 != 0), the two low words of m*p contribute:
        #   word 0: X0 + m*1 = c*2^32 (known zero, carry c);
        #   words 1-2: m*(2^32 - 1) = X0 + (m - c)*2^32, since lo = -m = X0
        #   and hi = m - 1 for m != 0 (both 0 for m = 0).
        # No multiply is spent on them (all ALU-pipe instructions):
        #   sub     m, 0, X0       m = -X0
        #   min     c, X0, 1
        #   sub     d, m, c        d = m - c = hi
        #   add.cc  _, X0, 2^32-1  carry out = c
        #   addc.cc X1, X1, X0     word 1 += lo + carry of word 0
        # A borrow (sub.cc/subc) is never fed to addc/madc: ptxas hands addc
        # the hardware flag, which after a subtraction is NOT borrow, not the
        # borrow the PTX manual names (checked in SASS: `sub.cc t, 0, x;
        # addc y, 0, 0` gives y = (x == 0)); the emulator refuses such mixing.
        # Then the even chain goes on with m*p[2..] from X2 (carry in from
        # word 1), and the odd chain adds d to Y1 (word 2) and m*p[3..] from
        # Y2. X0 is left holding its old value but is never read again: the
        # shift only reads X[1..] (V = X + Y*2^32 with X0 = 0 as before).
        # Every addend is non-negative, so X and Y stay exact partial sums
        # of V + m*p < 2^(32(n+1)) and the top-word addc's cannot overflow,
        # as in the generic step. The multiplier m comes from `sub`, not
        # `mul.lo` by 0xffffffff (nor `neg`): from those, ptxas 12.9 folds the
        # negation into the low halves (lo(m*k) = X0*(-k)) and splits every
        # m*p product into IMAD + IMAD.HI (3 IMAD-pipe slots) instead of one
        # IMAD.WIDE (2 slots). Check the SASS when changing this.
        ops.append(f"sub.u32 {m}, 0, {X[0]};")
        ops.append(f"min.u32 {d}, {X[0]}, 1;")
        ops.append(f"sub.u32 {d}, {m}, {d};")
        ops.append(f"add.cc.u32 {d_scratch}, {X[0]}, 0xffffffff;")
        ops.append(f"addc.cc.u32 {X[1]}, {X[1]}, {X[0]};")
        for j in range(2, n, 2):
            ops.append(f"madc.lo.cc.u32 {X[j]}, {m}, {P[j]}, {X[j]};")
            ops.append(f"madc.hi.cc.u32 {X[j + 1]}, {m}, {P[j]}, {X[j + 1]};")
        ops.append(f"addc.u32 {X[n]}, {X[n]}, 0;")
        ops.append(f"add.cc.u32 {Y[1]}, {Y[1]}, {d};")
        for j in range(3, n, 2):
            ops.append(f"madc.lo.cc.u32 {Y[j - 1]}, {m}, {P[j]}, {Y[j - 1]};")
            ops.append(f"madc.hi.cc.u32 {Y[j]}, {m}, {P[j]}, {Y[j]};")
        ops.append(f"addc.u32 {Y[n]}, {Y[n]}, 0;")

    for i in range(n):
        if square and i + 1 < n:
            ops.append(f"shl.b32 {lead}, {A[i + 1]}, 1;")
        if i == 0:
            for j in range(n):
                acc, pos = (X, j) if j % 2 == 0 else (Y, j - 1)
                ops.append(f"mul.lo.u32 {acc[pos]}, {B[0]}, {row(0, j)};")
                ops.append(f"mul.hi.u32 {acc[pos + 1]}, {B[0]}, {row(0, j)};")
            ops.append(f"mov.u32 {X[n]}, 0;")
            ops.append(f"mov.u32 {Y[n]}, 0;")
            for S, T in extra:
                chain(X, S, T[0], odd=False)
                chain(Y, S, T[0], odd=True)
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
                mult = row(i, j)
                if mult is None:
                    # No product below the row's diagonal: only the shift.
                    ops.append(f"addc.cc.u32 {X[pos]}, {lo_src}, 0;")
                    ops.append(f"addc.cc.u32 {X[pos + 1]}, {hi_src}, 0;")
                else:
                    ops.append(f"madc.lo.cc.u32 {X[pos]}, {B[i]}, {mult}, {lo_src};")
                    ops.append(f"madc.hi.cc.u32 {X[pos + 1]}, {B[i]}, {mult}, {hi_src};")
            ops.append(f"addc.u32 {X[n]}, 0, 0;")
            X, Y = Y, X
            chain(X, [row(i, j) for j in range(n)], B[i], odd=False)
            for S, T in extra:
                chain(X, S, T[i], odd=False)
                chain(Y, S, T[i], odd=True)
        if r_shaped:
            reduce_r_shaped(X, Y)
        else:
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
    modulus = sum(w << (32 * i) for i, w in enumerate(p))
    # A sum's running value (see `terms` above) fits X's n+1 words.
    assert terms == 1 or (2 * terms + 1) * modulus < 2 ** (32 * n)
    if lazy and terms <= 2:
        assert 2 * modulus < 2 ** (32 * n)
        for k in range(n):
            ops.append(f"mov.u32 {{r{k}}}, {R[k]};")
    else:
        S = Y  # free now
        ops.append(f"sub.cc.u32 {S[0]}, {R[0]}, {P[0]};")
        for k in range(1, n):
            ops.append(f"subc.cc.u32 {S[k]}, {R[k]}, {P[k]};")
        ops.append(f"subc.u32 {m}, 0, 0;")
        ops.append(f"setp.eq.u32 czp, {m}, 0;")
        for k in range(n):
            ops.append(f"selp.u32 {{r{k}}}, {S[k]}, {R[k]}, czp;")

    decl = f".reg .u32 {', '.join(regs)};"
    lines = ["{{", decl] + ([] if lazy and terms <= 2 else [".reg .pred czp;"]) + ops + ["}}"]
    operands = ["a"] if square else list("abcdefgh"[:2 * terms])
    if terms == 4:
        doc = (f"/// `(a·b + c·d + e·f + g·h) / 2^{32 * n}` for `{name}` with one reduction and\n"
               f"/// one conditional subtraction: operands `< 2p`, result `< 2p` (see\n"
               f"/// `gen_mul(terms=4)` in the generator).")
    elif terms == 2:
        doc = (f"/// `(a·b + c·d) / 2^{32 * n}` for `{name}` with one reduction: `a, b, c, d < 2p`,\n"
               f"/// result `< 2p` (see `gen_mul(terms=2)` in the generator).")
    elif square and lazy:
        doc = (f"/// Montgomery square for `{name}` without the final subtraction: `a < 2p`,\n"
               f"/// result `< 2p` (see `gen_mul(square=True, lazy=True)` in the generator).")
    elif square:
        doc = (f"/// Montgomery square for `{name}` on 32-bit words (see `gen_mul(square=True)`\n"
               f"/// in the generator), equal to `{name}_mont_mul(a, a)`.")
    elif lazy:
        doc = (f"/// Montgomery product for `{name}` without the final subtraction: `a < 2p`,\n"
               f"/// `b < p`, result `< 2p` (see `gen_mul(lazy=True)` in the generator).")
    else:
        doc_extra = "; r-shaped reduction" if r_shaped else ("; generic reduction" if name == "fr" else "")
        doc = f"/// Montgomery product for `{name}` on 32-bit words (see the module docs){doc_extra}."
    return wrapper(fn_name, len(limbs), operands, lines, doc)

def gen_addsub(name, limbs, sub, lazy=False):
    """`a + b mod p` (one carry chain, then p subtracted unless that
    borrows) or `a - b mod p` (one borrow chain, then p masked by the borrow
    added back), for reduced a, b: one asm block on 32-bit words, instead of
    the u64 code's per-limb carries (LLVM splits each `adc` into two 64-bit
    carry pairs). a + b < 2p < 2^(32n): the top word cannot carry out.

    `lazy`: the same with 2p in place of p, for a, b < 2p (results < 2p,
    congruent mod p). Then a + b < 4p can carry out of the top word: the
    carry k joins the borrow word (m = k - borrow), and the sum is kept
    only when m is all ones (no carry and 2p not subtractable)."""
    n = 2 * len(limbs)
    p = sum(w << (64 * i) for i, w in enumerate(limbs))
    if lazy:
        assert 2 * p < 2 ** (32 * n)
        p *= 2
    P = [f"0x{(p >> (32 * i)) & 0xFFFFFFFF:08x}" for i in range(n)]
    A = [f"{{a{i}}}" for i in range(n)]
    B = [f"{{b{i}}}" for i in range(n)]
    S = [f"cz{i}" for i in range(n)]
    T = [f"cz{n + i}" for i in range(n)]
    m = f"cz{2 * n}"
    k = f"cz{2 * n + 1}"
    ops = []
    if sub:
        ops.append(f"sub.cc.u32 {S[0]}, {A[0]}, {B[0]};")
        ops += [f"subc.cc.u32 {S[i]}, {A[i]}, {B[i]};" for i in range(1, n)]
        ops.append(f"subc.u32 {m}, 0, 0;")
        ops += [f"and.b32 {T[i]}, {m}, {P[i]};" for i in range(n)]
        ops.append(f"add.cc.u32 {{r0}}, {S[0]}, {T[0]};")
        ops += [f"addc.cc.u32 {{r{i}}}, {S[i]}, {T[i]};" for i in range(1, n - 1)]
        ops.append(f"addc.u32 {{r{n - 1}}}, {S[n - 1]}, {T[n - 1]};")
    else:
        ops.append(f"add.cc.u32 {S[0]}, {A[0]}, {B[0]};")
        ops += [f"addc.cc.u32 {S[i]}, {A[i]}, {B[i]};" for i in range(1, n - 1)]
        if lazy:
            ops.append(f"addc.cc.u32 {S[n - 1]}, {A[n - 1]}, {B[n - 1]};")
            ops.append(f"addc.u32 {k}, 0, 0;")
        else:
            ops.append(f"addc.u32 {S[n - 1]}, {A[n - 1]}, {B[n - 1]};")
        ops.append(f"sub.cc.u32 {T[0]}, {S[0]}, {P[0]};")
        ops += [f"subc.cc.u32 {T[i]}, {S[i]}, {P[i]};" for i in range(1, n)]
        if lazy:
            ops.append(f"subc.u32 {m}, {k}, 0;")
            ops.append(f"setp.ne.u32 czp, {m}, 0xffffffff;")
        else:
            ops.append(f"subc.u32 {m}, 0, 0;")
            ops.append(f"setp.eq.u32 czp, {m}, 0;")
        ops += [f"selp.u32 {{r{i}}}, {T[i]}, {S[i]}, czp;" for i in range(n)]
    regs = S + T + [m] + ([k] if lazy and not sub else [])
    lines = ["{{", f".reg .u32 {', '.join(regs)};"] + ([] if sub else [".reg .pred czp;"]) + ops + ["}}"]
    op = "-" if sub else "+"
    fn = f"{name}_{'sub' if sub else 'add'}{'_lazy' if lazy else ''}"
    if lazy:
        doc = (f"/// `a {op} b` for `{name}` with `a, b < 2p`, result `< 2p` (congruent mod p;\n"
               f"/// see `gen_addsub(lazy=True)` in the generator).")
    else:
        doc = f"/// `a {op} b mod p` for `{name}` on 32-bit words (see `gen_addsub` in the generator)."
    return wrapper(fn, len(limbs), ["a", "b"], lines, doc)


def wrapper(fn_name, l64, operands, lines, doc):
    """The Rust function around one asm block: u64 limbs split into the
    32-bit words `{x<i>}` of each operand, result words `{r<i>}` joined."""
    n = 2 * l64
    template = ",\n            ".join(f'"{l}"' for l in lines)
    params = ", ".join(f"{x}: &[u64; {l64}]" for x in operands)
    splits = "".join(f"\n    let {x}: [u32; {n}] = split({x});" for x in operands)
    ins = "".join(f"\n            {x}{i} = in(reg32) {x}[{i}]," for i in range(n) for x in operands)
    outs = "".join(f"\n            r{i} = out(reg32) r[{i}]," for i in range(n))
    return f'''
{doc}
#[inline(always)]
pub fn {fn_name}({params}) -> [u64; {l64}] {{{splits}
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
//!
//! `fr_mont_mul` reduces with r's shape (low words 1 and 2^32 - 1: m = -X0,
//! and those two words cost no multiply). The `*_mont_sqr` functions square
//! with each cross product computed once (n(n+1)/2 products instead of n^2).

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



def compile_ops(ops):
    """Compiles the generated PTX into a Python function on ints (for
    --selftest): env -> env, for the placeholders it reads and writes. The
    carry flag remembers which family set it: addc/madc must read a carry
    from an add/mad, subc a borrow from a sub (see reduce_r_shaped for why);
    that is checked here, once, since it does not depend on the values."""
    import re
    names = {}
    reads = []  # placeholders read before they are written: the inputs
    immediate = re.compile(r"^(0x[0-9a-fA-F]+|[0-9]+)$")

    def dst(t):
        if t not in names:
            names[t] = f"v{len(names)}"
        return names[t]

    def src(t):
        if immediate.match(t):
            return str(int(t, 0))
        if t not in names:
            reads.append(t)
        return dst(t)

    kind = None
    body = []

    def carry_in(ins, family):
        if not ins.startswith(("addc", "madc", "subc")):
            return ""
        assert kind == family, f"{ins} reads a flag set by {kind}"
        return " + cf" if family == "add" else " - cf"

    for op in ops:
        ins, rest = op.split(" ", 1)
        args = [a.strip() for a in rest.rstrip(";").split(",")]
        if ins == "mov.u32":
            body.append(f"{dst(args[0])} = {src(args[1])}")
        elif ins in ("mul.lo.u32", "mul.hi.u32"):
            a, b = src(args[1]), src(args[2])
            body.append(f"{dst(args[0])} = {a} * {b} & M" if ".lo" in ins else f"{dst(args[0])} = {a} * {b} >> 32")
        elif ins.startswith("mad"):
            a, b, c = src(args[1]), src(args[2]), src(args[3])
            part = f"({a} * {b} & M)" if ".lo" in ins else f"({a} * {b} >> 32)"
            body.append(f"s = {part} + {c}{carry_in(ins, 'add')}")
            body.append(f"{dst(args[0])} = s & M")
            if ".cc" in ins:
                body.append("cf = s >> 32")
                kind = "add"
        elif ins.startswith("add"):
            a, b = src(args[1]), src(args[2])
            body.append(f"s = {a} + {b}{carry_in(ins, 'add')}")
            body.append(f"{dst(args[0])} = s & M")
            if ".cc" in ins:
                body.append("cf = s >> 32")
                kind = "add"
        elif ins.startswith("sub"):
            a, b = src(args[1]), src(args[2])
            body.append(f"s = {a} - {b}{carry_in(ins, 'sub')}")
            body.append(f"{dst(args[0])} = s & M")
            if ".cc" in ins:
                body.append("cf = 1 if s < 0 else 0")
                kind = "sub"
        elif ins == "shl.b32":
            body.append(f"{dst(args[0])} = ({src(args[1])} << {src(args[2])}) & M")
        elif ins == "shf.l.wrap.b32":
            # Upper word of ({b}:{a}) << c.
            a, b, c = src(args[1]), src(args[2]), src(args[3])
            body.append(f"{dst(args[0])} = (({b} << 32 | {a}) << ({c} & 31)) >> 32 & M")
        elif ins == "and.b32":
            body.append(f"{dst(args[0])} = {src(args[1])} & {src(args[2])}")
        elif ins == "min.u32":
            body.append(f"{dst(args[0])} = min({src(args[1])}, {src(args[2])})")
        elif ins in ("setp.eq.u32", "setp.ne.u32"):
            cmp = "==" if ins == "setp.eq.u32" else "!="
            body.append(f"{dst(args[0])} = {src(args[1])} {cmp} {src(args[2])}")
        elif ins == "selp.u32":
            a, b, c = src(args[1]), src(args[2]), src(args[3])
            body.append(f"{dst(args[0])} = {a} if {c} else {b}")
        else:
            raise ValueError(op)
    outs = [t for t in names if t.startswith("{")]
    lines = ["def run(env):", "    M = 0xFFFFFFFF"]
    lines += [f"    {names[t]} = env[{t!r}]" for t in reads]
    lines += [f"    {l}" for l in body]
    lines += [f"    env[{t!r}] = {names[t]}" for t in outs]
    lines += ["    return env"]
    scope = {}
    exec("\n".join(lines), scope)
    return scope["run"]


# What is generated: (field, function, r-shaped reduction where the modulus
# allows it?, square?, lazy?, sum of two products?).
VARIANTS = [("fr", "fr_mont_mul", True, False, False, 1), ("fp", "fp_mont_mul", True, False, False, 1),
            ("fr", "fr_mont_sqr", True, True, False, 1), ("fp", "fp_mont_sqr", True, True, False, 1),
            ("fr", "fr_mont_mul_lazy", True, False, True, 1), ("fp", "fp_mont_mul_lazy", True, False, True, 1),
            ("fp", "fp_mont_sqr_lazy", True, True, True, 1), ("fp", "fp_mont_mul2_lazy", True, False, True, 2),
            ("fp", "fp_mont_mul4_lazy", True, False, True, 4)]
# Additions without the full reduction (the NTT's butterflies, the curve formulas).
LAZY_ADDSUB = ["fr", "fp"]


def asm_ops(src):
    """The PTX instructions of one generated function, placeholders kept."""
    lines = [l.strip().strip(",").strip('"') for l in src.splitlines()]
    ops = [l.replace("{{", "").replace("}}", "") for l in lines
           if l and l[0].isalpha() and l.endswith(";") and not l.startswith((".reg", "let", "//", "join", "pub", "unsafe", "core"))]
    return [o for o in ops if not o.startswith(".")]


def reference_x0s(a, b, p, m0, n):
    """X0 (the low word before reduction) of every CIOS round, big-int model."""
    v, out = 0, []
    for i in range(n):
        v += a * ((b >> (32 * i)) & 0xFFFFFFFF)
        x0 = v & 0xFFFFFFFF
        out.append(x0)
        v = (v + (x0 * m0 & 0xFFFFFFFF) * p) >> 32
    return out


def forced_b(a, p, m0, n, targets, rng):
    """A b < p whose word i makes round i's X0 equal targets[i] (None: random
    word). Needs a odd. Used to hit m = 0 (X0 = 0) and X0 = 2^32 - 1 (the
    word-1 sum X1 + X0 + 1 wraps) in chosen rounds."""
    inv_a0 = pow(a & 0xFFFFFFFF, -1, 2 ** 32)
    v, b = 0, 0
    for i in range(n):
        t = targets[i]
        if t is None:
            w = rng.randrange(2 ** 32)
        else:
            w = (t - v) * inv_a0 & 0xFFFFFFFF
        if i == n - 1 and (b | w << (32 * i)) >= p:
            return None
        b |= w << (32 * i)
        v += a * w
        v = (v + ((v & 0xFFFFFFFF) * m0 & 0xFFFFFFFF) * p) >> 32
    return b


def top_carry_operands(n, rng, top, last_row):
    """a, b < top with a's top word odd and b's words w = -1/a_top mod
    2^32, so a row's last low product lo(b_i * a_top) is 2^32 - 1 and
    carries into the top word whenever anything is added to it: a carry
    that random and edge operands almost never produce (a mutation
    dropping it passed all of them). Every row but the last (b's top word
    random), or the last alone (b's top word w, which must lie below top's
    top word; the other words random, so the row's sums are large)."""
    top_word = top >> (32 * (n - 1))
    low = 32 * (n - 1)
    while True:
        a_top = rng.randrange(1, top_word, 2)
        w = -pow(a_top, -1, 2 ** 32) % 2 ** 32
        a = a_top << low | rng.randrange(2 ** low)
        if last_row and w < top_word:
            return a, w << low | rng.randrange(2 ** low)
        if not last_row:
            return a, rng.randrange(top_word) << low | sum(w << (32 * i) for i in range(n - 1))


def selftest():
    import random
    rng = random.Random(0x5EED)
    for name, fn, special, square, lazy, terms in VARIANTS:
        limbs, inv = FIELDS[name]
        ops = asm_ops(gen_mul(name, limbs, inv, fn, special, square, lazy, terms))
        if terms > 1:
            selftest_sum(name, fn, ops, rng, terms)
            continue
        run = compile_ops(ops)
        n = 2 * len(limbs)
        p = sum(w << (64 * i) for i, w in enumerate(limbs))
        m0 = inv & 0xFFFFFFFF
        rinv = pow(2 ** (32 * n), -1, p)
        mont_one = 2 ** (32 * n) % p
        edges = [0, 1, 2, 3, p - 1, p - 2, p - 3, (p - 1) // 2, (p + 1) // 2, 2 ** 32, 2 ** 32 - 1,
                 2 ** 64 % p, mont_one, p - mont_one, p - 2 ** 32, 2 ** (32 * n - 2) % p,
                 sum(0xFFFFFFFF << (64 * i) for i in range(n // 2)) % p]
        cases = [(x, y) for x in edges for y in edges]
        # Word patterns: all-zero / all-one / single-bit words stress the carries.
        pats = [0, 1, 0xFFFFFFFF, 0xFFFFFFFE, 0x80000000, 0x7FFFFFFF]
        for _ in range(3000):
            x = sum(rng.choice(pats) << (32 * i) for i in range(n)) % p
            y = sum(rng.choice(pats) << (32 * i) for i in range(n)) % p
            cases.append((x, y))
        cases += [(rng.randrange(p), rng.randrange(p)) for _ in range(10000)]
        # Top words with their highest allowed bits set (the doubled copy).
        cases += [(p - 1 - rng.randrange(p >> 40), 0) for _ in range(500)]
        # Forced rounds: X0 = 0 (m = 0), X0 = 2^32 - 1, X0 = 1, in every round,
        # in alternate rounds and in random subsets.
        forced = 0
        while forced < 3000:
            a = rng.randrange(p) | 1
            t = rng.choice([0, 0xFFFFFFFF, 1])
            shape = rng.randrange(4)
            targets = [t if (shape == 0 or (shape == 1 and i % 2 == 0) or (shape == 2 and i % 2 == 1)
                             or (shape == 3 and rng.random() < 0.5)) else None for i in range(n)]
            b = forced_b(a, p, m0, n, targets, rng)
            if b is None:
                continue
            assert all(x0 == t for x0, t in zip(reference_x0s(a, b, p, m0, n), targets) if t is not None)
            cases.append((a, b))
            forced += 1
        cases += [top_carry_operands(n, rng, p, k % 2 == 1) for k in range(1000)]
        if square:
            # A square's rounds depend on a alone: use each case's operands.
            cases = [(x, x) for pair in cases for x in pair]
        if not square:
            # a < 2p (the NTT's lazily reduced values): the result is < 2p
            # lazily, reduced otherwise. Edge and patterned cases with a + p,
            # and a = 2p - 1.
            cases += [(x + p, y) for x, y in cases[:6000]] + [(2 * p - 1, y) for _, y in cases[:1000]]
            if lazy and name == "fp":
                # Fp's lazy values (curve formulas) have both operands < 2p.
                cases += [(x + p, y + p) for x, y in cases[:6000]] + [(2 * p - 1, 2 * p - 1)]
        elif lazy:
            cases += [(x + p, x + p) for x, _ in cases[:6000]] + [(2 * p - 1, 2 * p - 1)]
        hits = {"X0 = 0": 0, "X0 = 2^32-1": 0}
        for x, y in cases:
            for x0 in reference_x0s(x, y, p, m0, n):
                hits["X0 = 0"] += x0 == 0
                hits["X0 = 2^32-1"] += x0 == 0xFFFFFFFF
            env = {}
            for i in range(n):
                env[f"{{a{i}}}"] = (x >> (32 * i)) & 0xFFFFFFFF
                if not square:
                    env[f"{{b{i}}}"] = (y >> (32 * i)) & 0xFFFFFFFF
            env = run(env)
            got = sum(env[f"{{r{i}}}"] << (32 * i) for i in range(n))
            want = x * y * rinv % p
            if lazy:
                assert got < 2 * p and got % p == want, (fn, hex(x), hex(y), hex(got), hex(want))
            else:
                assert got == want, (fn, hex(x), hex(y), hex(got), hex(want))
        # Rounds can only be forced through a free b: squares rely on the
        # random and patterned cases (the reduction is the multiplication's).
        assert square or all(hits.values()), hits
        print(f"{fn}: {len(cases)} products match ({forced} with forced rounds; rounds with "
              + ", ".join(f"{k}: {v}" for k, v in hits.items()) + f"), {len(ops)} PTX instructions")


def selftest_sum(name, fn, ops, rng, terms):
    """a*b + c*d (+ e*f + g*h) with one reduction, for lazy operands (< 2p):
    edges (0, 1, p - 1, p, 2p - 1, all-ones words below 2p), random values
    below p and below 2p, all operands at 2p - 1 (the largest end value,
    which the four-term form must bring below 2p), and the top-carry shapes."""
    limbs, inv = FIELDS[name]
    n = 2 * len(limbs)
    k = 2 * terms
    p = sum(w << (64 * i) for i, w in enumerate(limbs))
    rinv = pow(2 ** (32 * n), -1, p)
    edges = [0, 1, 2, p - 1, p, p + 1, 2 * p - 1, 2 * p - 2, 2 ** 32 - 1, 2 ** (32 * n - 1) % (2 * p),
             sum(0xFFFFFFFF << (64 * i) for i in range(n // 2)) % (2 * p)]
    cases = [tuple(rng.choice(edges) for _ in range(k)) for _ in range(5000)]
    cases += [tuple(rng.randrange(2 * p) for _ in range(k)) for _ in range(10000)]
    cases += [tuple(rng.randrange(p) for _ in range(k)) for _ in range(1000)]
    cases += [tuple(2 * p - 1 - rng.randrange(p >> 8) for _ in range(k)) for _ in range(1000)]
    cases += [(2 * p - 1,) * k, (2 * p - 1, 2 * p - 1) + (0,) * (k - 2), (0,) * (k - 2) + (2 * p - 1, 2 * p - 1)]
    cases += [sum((top_carry_operands(n, rng, 2 * p, j % 2 == 1) for _ in range(terms)), ())
              for j in range(2000)]
    run = compile_ops(ops)
    big = 0
    for ops_in in cases:
        env = {}
        for i in range(n):
            for name_k, v in zip("abcdefgh", ops_in):
                env[f"{{{name_k}{i}}}"] = (v >> (32 * i)) & 0xFFFFFFFF
        env = run(env)
        got = sum(env[f"{{r{i}}}"] << (32 * i) for i in range(n))
        total = sum(ops_in[2 * t] * ops_in[2 * t + 1] for t in range(terms))
        want = total * rinv % p
        big += got >= p
        assert got < 2 * p and got % p == want, (fn, [hex(v) for v in ops_in], hex(got), hex(want))
    print(f"{fn}: {len(cases)} sums of {terms} products match ({big} results in [p, 2p)), "
          f"{len(ops)} PTX instructions")


def selftest_addsub():
    import random
    rng = random.Random(0xADD5)
    runs = [(name, False) for name in FIELDS] + [(name, True) for name in LAZY_ADDSUB]
    for name, lazy in runs:
        limbs = FIELDS[name][0]
        n = 2 * len(limbs)
        p = sum(w << (64 * i) for i, w in enumerate(limbs))
        top = 2 * p if lazy else p  # operands are below this
        edges = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2 ** 32 - 1, 2 ** 32, 2 ** 64 - 1,
                 p - 2 ** 32, sum(0xFFFFFFFF << (64 * i) for i in range(n // 2)) % p]
        if lazy:
            edges += [p, p + 1, 2 * p - 1, 2 * p - 2, 2 * p - 2 ** 32, 2 ** (32 * n) - 1 - p]
            edges = [e for e in edges if e < top]  # the last one only where 2p is near 2^(32n)
        cases = [(x, y) for x in edges for y in edges]
        cases += [(x, top - x) for x in edges[1:]] + [(x, x) for x in edges]  # sums equal to the bound, equal operands
        cases += [(rng.randrange(top), rng.randrange(top)) for _ in range(20000)]
        for sub in (False, True):
            ops = asm_ops(gen_addsub(name, limbs, sub, lazy))
            run = compile_ops(ops)
            for x, y in cases:
                env = {}
                for i in range(n):
                    env[f"{{a{i}}}"] = (x >> (32 * i)) & 0xFFFFFFFF
                    env[f"{{b{i}}}"] = (y >> (32 * i)) & 0xFFFFFFFF
                env = run(env)
                got = sum(env[f"{{r{i}}}"] << (32 * i) for i in range(n))
                want = (x - y) % p if sub else (x + y) % p
                if lazy:
                    assert got < 2 * p and got % p == want, (name, sub, hex(x), hex(y), hex(got), hex(want))
                else:
                    assert got == want, (name, sub, hex(x), hex(y), hex(got), hex(want))
            print(f"{name}_{'sub' if sub else 'add'}{'_lazy' if lazy else ''}: {len(cases)} results match, "
                  f"{len(ops)} PTX instructions")


if __name__ == "__main__":
    if __import__("sys").argv[1:] == ["--selftest"]:
        selftest()
        selftest_addsub()
    else:
        print(HEADER + "".join(gen_mul(f, *FIELDS[f], fn, special, square, lazy, terms)
                               for f, fn, special, square, lazy, terms in VARIANTS)
              + "".join(gen_addsub(f, FIELDS[f][0], sub) for f in FIELDS for sub in (False, True))
              + "".join(gen_addsub(f, FIELDS[f][0], sub, True) for f in LAZY_ADDSUB for sub in (False, True)),
              end="")
