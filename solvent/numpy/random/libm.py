"""The C library's `log1p`, `exp` and `log` (and `log1pf` and `expf`, of floats) as array code,
operation for operation, so that the values NumPy's ziggurats draw from their tails and edges, and
its legacy Gaussian's polar method, come out bit for bit as NumPy's C code computes them.

glibc's double `log1p` is the SunPro (fdlibm) algorithm: reduce 1 + x to 2^k (1 + f) with
sqrt(2)/2 < 1 + f < sqrt(2) (and a correction c for the rounding of 1 + x), then
log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))) with s = f / (2 + f) and R a degree-7 polynomial in
s^2, and k ln 2 added in two parts; `log1pf` is the same in float arithmetic. glibc's `exp` and
`expf` are Szabolcs Nagy's table-driven ones. On CPUs with FMA, glibc runs builds of some of these
in which GCC fused some multiply-adds into one FMA (rounded once): those are written as a * b + c,
which XLA's CPU compiler fuses alike, and every other product, and every sum XLA could fold with the
next, is `rounded` on its own. `fused` tells which build this process runs, from inputs where the two
differ.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import decimal
import functools

import numpy as np

from solvent.core import trace
from solvent.errors import UnsupportedError
from solvent.numpy.folding import traced_constant
from solvent.numpy import values
from solvent.numpy.elementwise.bodies import kept
from solvent.numpy.values import is_traced, wrap


def _double(bits: int) -> float:
    return float(np.uint64(bits).view(np.float64))


_LN2_HI, _LN2_LO = _double(0x3FE62E42FEE00000), _double(0x3DEA39EF35793C76)  # n ln2_hi is exact for |n| < 2000
#: The coefficients Lp1..Lp7 of R(z) = Lp1 z + Lp2 z^2 + ... + Lp7 z^7 (a Remez fit on [0, 0.1716]).
_LP = tuple(_double(b) for b in (0x3FE5555555555593, 0x3FD999999997FA04, 0x3FD2492494229359, 0x3FCC71C51D8E78AF,
                                 0x3FC7466496CB03DE, 0x3FC39A09D078C69F, 0x3FC2F112DF3E5244))
_LOW_WORD = np.uint64(0xFFFFFFFF)


def rounded(value):
    """`value` rounded to a double (a float32 stays one) on its own before it is used: an identity to
    NumPy, and to XLA a select it cannot see through (`bodies.kept`), so that it neither fuses a
    product into the add that follows (one FMA, rounded once) nor folds a sum with a constant into
    the next one ((1 + x) - 1 to x)."""
    if is_traced(value):
        with trace.current().emitting():
            return wrap(kept(values.value(value)), scalar=False)
    return np.asarray(value, np.float32 if np.result_type(value) == np.float32 else np.float64)


def lookup(table: np.ndarray, index):
    """table[index], for an index traced or not."""
    return (traced_constant(table) if is_traced(index) else table)[index]


def _madd(a, b, c, fused: bool):
    """a * b + c as glibc's build computes it: one FMA where `fused` (XLA's CPU compiler fuses the
    two when the CPU has FMA, as GCC does for glibc's FMA build), else rounded twice."""
    return a * b + c if fused else rounded(a * b) + c


def log1p(x, fused: bool):
    """log(1 + x) exactly as glibc's `log1p` rounds it, for -1 < x < 2^53 (NumPy's ziggurat takes
    x in (-1, 0]); x at or below -1, infinite or NaN is not handled. `fused`: glibc's FMA build
    (chosen on CPUs with FMA), whose multiply-adds round once; only traced code can fuse them."""
    x = rounded(x)  # an argument, as to a C function: not a product to fuse into what follows
    bits = x.view(np.uint64)
    high = (bits >> np.uint64(32)).astype(np.int64)  # the high word, as unsigned
    magnitude = high & 0x7FFFFFFF
    negative = high >= 0x80000000
    # k = 0 and f = x where -0.2929 < x < 0.41422: then 1 + x needs no reduction.
    plain = np.where(negative, magnitude <= 0x3FD2BEC3, magnitude < 0x3FDA827A)
    u = rounded(1.0 + x)  # (XLA would fold u - 1 back to x)
    u_high = (u.view(np.uint64) >> np.uint64(32)).astype(np.int64)
    k = (u_high >> 20) - 1023
    correction = np.where(k > 0, 1.0 - (u - x), x - (u - 1.0)) / u
    mantissa = u_high & 0x000FFFFF
    small = mantissa < 0x6A09E  # 1 + f below sqrt(2): u scaled to [1, sqrt(2)), else to [sqrt(2)/2, 1)
    k = np.where(small, k, k + 1)
    reduced_high = np.where(small, mantissa | 0x3FF00000, mantissa | 0x3FE00000)
    reduced = ((reduced_high.astype(np.uint64) << np.uint64(32)) | (u.view(np.uint64) & _LOW_WORD)).view(np.float64)
    hu = np.where(plain, 1, np.where(small, mantissa, (0x00100000 - mantissa) >> 2))
    k = np.where(plain, 0, k)
    f = np.where(plain, x, reduced - 1.0)
    c = np.where(plain, 0.0, correction)
    dk = k.astype(np.float64)
    hfsq = rounded(rounded(0.5 * f) * f)
    low = _madd(dk, _LN2_LO, c, fused)  # k ln2_lo + c
    result = np.where(hu == 0, _near_power_of_two(f, k, dk, low, hfsq, fused), _general(f, k, dk, low, hfsq, fused))
    tiny = magnitude < 0x3E200000  # |x| < 2^-29: x - x^2/2, or x itself below 2^-54
    tiny_result = np.where(magnitude < 0x3C900000, x, _madd(-rounded(x * x), 0.5, x, fused))
    return np.where(tiny, tiny_result, result)


def _near_power_of_two(f, k, dk, low, hfsq, fused: bool):
    """log1p where |f| < 2^-20: a short series, and exactly k ln 2 where f is 0."""
    r = rounded(hfsq * _madd(-f, 0.66666666666666666, 1.0, fused))
    at_zero = np.where(k == 0, 0.0, _madd(dk, _LN2_HI, low, fused))
    series = np.where(k == 0, f - r, _madd(dk, _LN2_HI, -((r - low) - f), fused))
    return np.where(f == 0.0, at_zero, series)


def _general(f, k, dk, low, hfsq, fused: bool):
    """log1p by the polynomial in s = f / (2 + f), its terms summed in glibc's order."""
    s = f / (2.0 + f)
    z = rounded(s * s)
    z2 = rounded(z * z)
    z4 = rounded(z2 * z2)
    z6 = rounded(z4 * z2)
    r2, r3, r4 = (_madd(z, _LP[i + 1], _LP[i], fused) for i in (1, 3, 5))
    r = _madd(z, _LP[0], rounded(z2 * r2), fused)
    r = _madd(z4, r3, r, fused)
    r = _madd(z6, r4, r, fused)
    spread = rounded(s * (hfsq + r))
    plain = f - (hfsq - spread)
    scaled = _madd(dk, _LN2_HI, -((hfsq - (spread + low)) - f), fused)
    return np.where(k == 0, plain, scaled)


def _single(bits: int) -> np.float32:
    return np.uint32(bits).view(np.float32)


_LN2_HI_F, _LN2_LO_F = _single(0x3F317180), _single(0x3717F7D1)
_LP_F = tuple(_single(b) for b in (0x3F2AAAAB, 0x3ECCCCCD, 0x3E924925, 0x3E638E29, 0x3E3A3325, 0x3E1CD04F, 0x3E178897))


def log1pf(x, fused: bool):
    """log(1 + x) of a float32 exactly as glibc's `log1pf` rounds it (the float version of `log1p`'s
    algorithm, in float32 arithmetic), for -1 < x < 2^52 (NumPy's float32 ziggurat takes (-1, 0])."""
    one, f32 = np.float32(1.0), np.float32
    x = rounded(np.asarray(x, f32) if not is_traced(x) else x)
    hx = x.view(np.int32).astype(np.int64)  # the bits, signed as C reads them
    magnitude = hx & 0x7FFFFFFF
    plain = (hx < 0x3ED413D7) & ((hx > 0) | (hx <= 0xBE95F61F - 2 ** 32))  # -0.2929 < x < 0.41422: k = 0
    u = rounded(one + x)
    hu = u.view(np.int32).astype(np.int64)
    k = (hu >> 23) - 127
    correction = np.where(k > 0, one - (u - x), x - (u - one)) / u
    mantissa = hu & 0x007FFFFF
    small = mantissa < 0x3504F7
    k = np.where(plain, 0, np.where(small, k, k + 1))
    reduced = np.where(small, mantissa | 0x3F800000, mantissa | 0x3F000000).astype(np.int32).view(f32)
    hu = np.where(plain, 1, np.where(small, mantissa, (0x00800000 - mantissa) >> 2))
    f = np.where(plain, x, reduced - one)
    c = np.where(plain, f32(0.0), correction)
    dk = k.astype(f32)
    hfsq = rounded(rounded(f32(0.5) * f) * f)
    low = _madd(dk, _LN2_LO_F, c, fused)  # k ln2_lo + c
    near = rounded(hfsq * _madd(-f, _single(0x3F2AAAAB), one, fused))  # |f| < 2^-20
    at_zero = np.where(k == 0, f32(0.0), _madd(dk, _LN2_HI_F, low, fused))
    series = np.where(k == 0, f - near, _madd(dk, _LN2_HI_F, -((near - low) - f), fused))
    s = f / (f32(2.0) + f)
    z = rounded(s * s)
    r = _madd(z, _LP_F[6], _LP_F[5], fused)
    for coefficient in reversed(_LP_F[:5]):
        r = _madd(z, r, coefficient, fused)
    r = rounded(z * r)
    spread = rounded(s * (hfsq + r))
    general = np.where(k == 0, f - (hfsq - spread), _madd(dk, _LN2_HI_F, -((hfsq - (spread + low)) - f), fused))
    result = np.where(hu == 0, np.where(f == 0.0, at_zero, series), general)
    tiny = np.where(magnitude < 0x24800000, x, x - rounded(rounded(x * x) * f32(0.5)))  # |x| < 2^-29
    return np.where(magnitude < 0x31000000, tiny, result)


_N = 128  # glibc's exp tabulates 2^(i/N)
_INV_LN2_N, _NEG_LN2_HI_N, _NEG_LN2_LO_N, _SHIFT = (_double(b) for b in (
    0x40671547652B82FE, 0xBF762E42FEFA0000, 0xBD0CF79ABC9E3B3A, 0x4338000000000000))
#: The coefficients C2..C5 of exp(r) - 1 - r ~ C2 r^2 + C3 r^3 + C4 r^4 + C5 r^5 on |r| < ln2 / 2N.
_EXP_POLY = tuple(_double(b) for b in (0x3FDFFFFFFFFFFDBD, 0x3FC555555555543C, 0x3FA55555CF172B91, 0x3F81111167A4D017))


@functools.cache
def _exp_table() -> tuple[np.ndarray, np.ndarray]:
    """glibc's table for exp: for i < N, the bits of 2^(i/N) rounded (less i << 45, which the
    exponent adds back) and the rounding's relative error as a double, from 60-digit decimals."""
    decimal.getcontext().prec = 60
    scales, tails = [], []
    for i in range(_N):
        exact = decimal.Decimal(2) ** (decimal.Decimal(i) / _N)
        scale = float(exact)
        scales.append((int(np.float64(scale).view(np.uint64)) - (i << 45)) % 2 ** 64)
        tails.append(float((exact - decimal.Decimal(scale)) / decimal.Decimal(scale)))
    return np.array(scales, np.uint64), np.array(tails, np.float64)


def exp(x, fused: bool):
    """e^x exactly as glibc's `exp` rounds it (Szabolcs Nagy's: x = k ln2/N + r, e^x = 2^(k/N) e^r
    with 2^(k/N) from a table and e^r by a polynomial), for |x| < 512; `fused` as for `log1p`."""
    x = rounded(x)
    scales, tails = _exp_table()
    kd = rounded(_madd(x, _INV_LN2_N, _SHIFT, fused))  # k + 1.5 2^52: k in the low bits (XLA would fold kd - shift)
    ki = kd.view(np.uint64)
    kd = kd - _SHIFT
    r = _madd(kd, _NEG_LN2_LO_N, _madd(kd, _NEG_LN2_HI_N, x, fused), fused)
    index = (ki % np.uint64(_N)).astype(np.int64)
    scale = (lookup(scales, index) + (ki << np.uint64(45))).view(np.float64)
    r2 = rounded(r * r)
    low, high = _madd(r, _EXP_POLY[1], _EXP_POLY[0], fused), _madd(r, _EXP_POLY[3], _EXP_POLY[2], fused)
    tmp = _madd(rounded(r2 * r2), high, _madd(r2, low, lookup(tails, index) + r, fused), fused)
    tiny = (x.view(np.uint64) >> np.uint64(52)) & np.uint64(0x7FF) < np.uint64(0x3C9)  # |x| < 2^-54
    return np.where(tiny, 1.0 + x, _madd(scale, tmp, scale, fused))


_LOG_NEAR_LOW, _LOG_NEAR_SPAN = np.uint64(0x3FEE000000000000), np.uint64(0x3FF1090000000000 - 0x3FEE000000000000)
_NF = 32  # glibc's expf tabulates 2^(i/NF)
_INV_LN2_NF, _SHIFT_F = float.fromhex("0x1.71547652b82fep+0") * _NF, float.fromhex("0x1.8p+52")
#: The coefficients of 2^(r/NF) ~ C0 r^3 + C1 r^2 + C2 r + 1.
_EXPF_POLY = (float.fromhex("0x1.c6af84b912394p-5") / _NF ** 3, float.fromhex("0x1.ebfce50fac4f3p-3") / _NF ** 2,
              float.fromhex("0x1.62e42ff0c52d6p-1") / _NF)


@functools.cache
def _expf_table() -> np.ndarray:
    """glibc's table for expf: the bits of 2^(i/NF) rounded, less i << 47 (which the exponent adds back)."""
    decimal.getcontext().prec = 60
    return np.array([(int(np.float64(float(decimal.Decimal(2) ** (decimal.Decimal(i) / _NF))).view(np.uint64))
                      - (i << 47)) % 2 ** 64 for i in range(_NF)], np.uint64)


def expf(x):
    """e^x of a float32 exactly as glibc's `expf` rounds it (Szabolcs Nagy's, in double: x NF/ln2 =
    k + r, e^x = 2^(k/NF) 2^(r/NF) with 2^(k/NF) from a table and 2^(r/NF) by a cubic), for |x| < 88.
    Its plain and FMA builds give the same floats for every x in [-8, 0] (compiled both ways and
    compared), the inputs NumPy's float32 ziggurat gives it: the plain one is written."""
    z = rounded(_INV_LN2_NF * rounded(x.astype(np.float64)))
    kd = rounded(z + _SHIFT_F)
    ki = kd.view(np.uint64)
    r = rounded(z - (kd - _SHIFT_F))
    scale = (lookup(_expf_table(), (ki % np.uint64(_NF)).astype(np.int64)) + (ki << np.uint64(47))).view(np.float64)
    linear = rounded(rounded(_EXPF_POLY[2] * r) + 1.0)
    cubic = rounded(rounded(rounded(_EXPF_POLY[0] * r) + _EXPF_POLY[1]) * rounded(r * r)) + linear
    return rounded(cubic * scale).astype(np.float32)


_LOG_OFFSET = np.uint64(0x3FE6000000000000)  # the bits of 0x1.6p-1: each table interval's z lies in [0x1.6p-1, 0x1.6p0)
_LN2_PAIR = (0x3FE62E42FEFA3800, 0x3D2EF35793C76730)  # glibc's ln2 in two parts, where its log's constants begin


@functools.cache
def _log_data() -> dict:
    """glibc's constants for `log`, read from the C library this process runs. Its table cannot be
    computed here: glibc chose each entry by a search among candidates. The data follow the two parts
    of ln 2: five coefficients A, eleven B, (1/c, log c) for each of 128 intervals and (c, its rest)."""
    ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    with open("/proc/self/maps") as maps:
        paths = [line.split()[-1] for line in maps if "/libm" in line and ".so" in line]
    key = np.array(_LN2_PAIR, "<u8").tobytes() + np.array([-0.5000000000000001], "<f8").tobytes()
    for path in paths[:1]:
        with open(path, "rb") as library:
            data = library.read()
        at = data.find(key)
        if at >= 0:
            words = np.frombuffer(data, "<f8", 2 + 5 + 11 + 4 * 128, at).astype(np.float64)
            table, rests = words[18:18 + 256].reshape(128, 2), words[18 + 256:].reshape(128, 2)
            if words[7] == -0.5 and np.all(np.abs(table[:, 0] * rests[:, 0] - 1.0) < 2.0 ** -40):
                return {"a": words[2:7], "b": words[7:18], "invc": table[:, 0], "logc": table[:, 1],
                        "chi": rests[:, 0], "clo": rests[:, 1]}
    raise UnsupportedError("NumPy's legacy normals inside solvent.jit on this machine: its C library's log is "
                           "not glibc's, whose rounding solvent reproduces; draw the numbers outside the "
                           "function and pass them in")


def log(x, fused: bool):
    """log(x) exactly as glibc's `log` rounds it, for positive normal x (NumPy's legacy Gaussian takes
    x in (0, 1)). Near 1, log(1 + r) by a polynomial in r with r^2/2 split exactly; elsewhere
    x = 2^k z, log(x) = k ln2 + log(c) + log(z/c), c from a table of 128 intervals and log(z/c) by a
    polynomial. `fused` as for `log1p`."""
    data, x = _log_data(), rounded(x)
    bits = x.view(np.uint64)
    near = (bits - _LOG_NEAR_LOW) < _LOG_NEAR_SPAN
    with np.errstate(over="ignore", invalid="ignore"):  # (on NumPy arrays each way runs on every x)
        return np.where(near, _log_near_one(x, data["b"], fused), _log_table(bits, data, fused))


def _log_table(bits, data: dict, fused: bool):
    """log(2^k z) = k ln2 + log(c) + log1p(z/c - 1), summed as glibc sums it."""
    a = data["a"]
    tmp = bits - _LOG_OFFSET
    i = ((tmp >> np.uint64(45)) % np.uint64(128)).astype(np.int64)
    kd = (tmp.view(np.int64) >> np.int64(52)).astype(np.float64)
    z = (bits - (tmp & np.uint64(0xFFF << 52))).view(np.float64)
    invc, logc = lookup(data["invc"], i), lookup(data["logc"], i)
    if fused:
        r = z * invc - 1.0  # one FMA
    else:
        r = rounded((z - lookup(data["chi"], i) - lookup(data["clo"], i)) * invc)
    w = _madd(kd, _double(_LN2_PAIR[0]), logc, fused)
    hi = rounded(w + r)
    low = _madd(kd, _double(_LN2_PAIR[1]), rounded(w - hi) + r, fused)
    r2 = rounded(r * r)
    p = _madd(r2, _madd(r, a[4], a[3], fused), _madd(r, a[2], a[1], fused), fused)
    return _madd(rounded(r * r2), p, _madd(r2, a[0], low, fused), fused) + hi


def _log_near_one(x, b, fused: bool):
    """log(1 + r) for x = 1 + r near 1: r - r^2/2 (its high part exact) plus r^3 times a polynomial."""
    r = x - 1.0
    r2 = rounded(r * r)
    r3 = rounded(r * r2)
    poly = _madd(r3, b[10], _madd(r2, b[9], _madd(r, b[8], b[7], fused), fused), fused)
    poly = _madd(r3, poly, _madd(r2, b[6], _madd(r, b[5], b[4], fused), fused), fused)
    poly = _madd(r3, poly, _madd(r2, b[3], _madd(r, b[2], b[1], fused), fused), fused)
    w = r * 134217728.0  # 2^27: r's high half, exactly
    high = rounded(r + w) - w
    rest = r - high
    w = rounded(rounded(high * high) * b[0])  # b[0] = -1/2
    hi = rounded(r + w)
    low = rounded(r - hi) + w
    low = _madd(rounded(b[0] * rest), high + r, low, fused)
    return _madd(r3, poly, low, fused) + hi


#: Inputs where glibc's plain build and its FMA build round differently: (x, plain, FMA), in hex.
_PROBES = {
    "log1p": (("-0x1.56a7643258913p-1", "-0x1.1b3bb6ca10effp+0", "-0x1.1b3bb6ca10f00p+0"),
              ("-0x1.86fbda26e1b60p-3", "-0x1.b1dbe42a0f62bp-3", "-0x1.b1dbe42a0f62ap-3"),
              ("-0x1.621b9d73de83cp-3", "-0x1.84c81a6657726p-3", "-0x1.84c81a6657725p-3")),
    "exp": (("-0x1.edeee4c2c877ep+1", "0x1.5993032142e1ep-6", "0x1.5993032142e1fp-6"),
            ("-0x1.943865b83b3bbp+2", "0x1.d9c34ec6fe2bep-10", "0x1.d9c34ec6fe2bdp-10"),
            ("-0x1.ea8af807861a4p+1", "0x1.62d98af10e10ep-6", "0x1.62d98af10e10dp-6")),
    "log": (("0x1.6c2153e00d1a2p-1", "-0x1.5cfe207ddd216p-2", "-0x1.5cfe207ddd215p-2"),
            ("0x1.6abefddc57f44p-1", "-0x1.60e47b885dc68p-2", "-0x1.60e47b885dc67p-2"),
            ("0x1.dd48eb6270a3fp-1", "-0x1.1f95bcc045368p-4", "-0x1.1f95bcc045369p-4")),
    "log1pf": (("-0x1.d404bap-1", "-0x1.3a2ed8p+1", "-0x1.3a2edap+1"),
               ("-0x1.119424p-2", "-0x1.3e4c0cp-2", "-0x1.3e4c0ep-2"),
               ("-0x1.579daep-1", "-0x1.1cb116p+0", "-0x1.1cb118p+0")),
}


@functools.cache
def fused(name: str) -> bool:
    """Whether this process's C library computes `name` as glibc's FMA build (True) or as its plain
    build (False), told by inputs where the two differ; NumPy's C code calls the same library."""
    path = ctypes.util.find_library("m")
    function = getattr(ctypes.CDLL(path), name, None) if path else None
    if function is not None:
        kind = ctypes.c_float if name.endswith("f") else ctypes.c_double  # log1pf: of a float
        function.restype, function.argtypes = kind, [kind]
        got = [function(float.fromhex(x)) for x, _, _ in _PROBES[name]]
        for column, fma in ((1, False), (2, True)):
            if got == [float.fromhex(probe[column]) for probe in _PROBES[name]]:
                return fma
    raise UnsupportedError(f"NumPy's ziggurat draws inside solvent.jit on this machine: its C library's {name} "
                           "is not glibc's, whose rounding solvent reproduces; draw the numbers outside the "
                           "function and pass them in")
