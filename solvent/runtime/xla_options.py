"""XLA backend options solvent compiles with, where XLA's defaults suit `jax.numpy` code but not
loops written over rows.

`xla_backend_extra_options` is a map in XLA's DebugOptions that jaxlib's CompileOptions neither
exposes as an attribute nor accepts as an override, so an entry is added to the serialized options:
DebugOptions is field 3 of ExecutableBuildOptions, itself field 3 of CompileOptions, and the map is
field 500 of DebugOptions (entries of key 1 and value 2). What XLA_FLAGS sets is kept.
"""

from __future__ import annotations

#: XLA:CPU compiles a while loop whose one iteration reads and writes fewer bytes than this into a
#: single kernel (its small-while-loop hoisting) instead of dispatching each op of the body as a
#: thunk. XLA's default is 1 KiB, which leaves the loops over rows of scientific code, whose
#: iterations do a few µs of work on a few rows, paying ~0.1-0.2 µs of dispatch per op.
SMALL_LOOP_BYTES = 1 << 18

BACKEND = {"xla_cpu_small_while_loop_byte_threshold": str(SMALL_LOOP_BYTES)}

_BUILD_OPTIONS, _DEBUG_OPTIONS, _EXTRA_OPTIONS = 3, 3, 500


def with_backend_options(options, extra: dict[str, str] = BACKEND):
    """A copy of `options` (an `xla_client.CompileOptions`) with the `extra` backend options that
    XLA_FLAGS did not set already."""
    data = options.SerializeAsString()
    build = _field(data, _BUILD_OPTIONS)
    debug = _field(build, _DEBUG_OPTIONS)
    entries = b"".join(_entry(key, value) for key, value in extra.items() if key.encode() not in debug)
    if entries:
        build = _replace(build, _DEBUG_OPTIONS, debug + entries)
        return type(options).ParseFromString(_replace(data, _BUILD_OPTIONS, build))
    return options


def _entry(key: str, value: str) -> bytes:
    entry = _bytes_field(1, key.encode()) + _bytes_field(2, value.encode())
    return _bytes_field(_EXTRA_OPTIONS, entry)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _bytes_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if byte < 0x80:
            return value, at


def _span(data: bytes, number: int) -> tuple[int, int]:
    """(start, end) of the last length-delimited field `number` in a serialized message, its tag
    included; (len, len) when there is none."""
    at, found = 0, (len(data), len(data))
    while at < len(data):
        start = at
        tag, at = _read_varint(data, at)
        wire = tag & 7
        if wire == 0:
            _, at = _read_varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            size, at = _read_varint(data, at)
            at += size
            if tag >> 3 == number:
                found = (start, at)
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")
    return found


def _field(data: bytes, number: int) -> bytes:
    start, end = _span(data, number)
    if start == end:
        return b""
    _, at = _read_varint(data, start)
    _, at = _read_varint(data, at)
    return data[at:end]


def _replace(data: bytes, number: int, payload: bytes) -> bytes:
    start, end = _span(data, number)
    return data[:start] + _bytes_field(number, payload) + data[end:]
