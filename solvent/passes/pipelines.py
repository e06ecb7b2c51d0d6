"""Optimize levels as named Enzyme-JAX pass pipelines (data, not branches), and running them."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import tempfile
import types

from enzyme_ad.jax import enzyme_call, optimization_passes
from jaxlib.mlir import ir

from solvent.passes import (data_slices, empty_values, loop_broadcasts, narrow_counters, signless_carries,
                            two_way_cases)
from solvent.passes.diagnose import ENZYME_OPS, Undiagnosed, explained
from solvent.ir.module import find_function, in_loop, ops_where, parse, to_text

ENZYME_AD = ('enzyme{postpasses="arith-raise{stablehlo=true},enzyme-batch-to-stablehlo,canonicalize,'
             'cse,canonicalize,remove-unnecessary-enzyme-ops,enzyme-simplify-math,canonicalize,cse,canonicalize"}')
CLEANUP = ["canonicalize", "remove-unnecessary-enzyme-ops", "enzyme-simplify-math"]

#: Each level is a list of stages; "patterns" is the Enzyme-HLO pattern pipeline,
#: "patterns_down" the same with transposes and reshapes propagated downward.
LEVELS: dict[str, list[str]] = {
    "all": ["mark-func-memory-effects", "patterns", "enzyme-batch", "patterns", ENZYME_AD, "patterns",
            *CLEANUP, "patterns", "patterns_down"],
    "none": [],
    "canonicalize": ["canonicalize", "cse", "canonicalize"],
    "just_batch": ["enzyme-batch", "canonicalize"],
    "only_enzyme": ["enzyme-batch", ENZYME_AD, *CLEANUP],
    "after_enzyme": ["enzyme-batch", ENZYME_AD, *CLEANUP, "patterns"],
    "before_enzyme": ["mark-func-memory-effects", "patterns", "enzyme-batch", ENZYME_AD, *CLEANUP],
    "no_enzyme": ["mark-func-memory-effects", "patterns", "enzyme-batch", "patterns", "patterns_down"],
}


#: A level's stages for a module without Enzyme ops (no autodiff, no batching): the stages
#: that only lower those ops, and the pattern runs that follow them, change nothing there and
#: cost a quarter of a first call (measured: the same module out, in half the time).
WITHOUT_ENZYME_OPS: dict[str, list[str]] = {
    "all": ["mark-func-memory-effects", "patterns", "canonicalize", "enzyme-simplify-math", "patterns_down"],
}


def _lowering_enzyme(stages: list[str]) -> list[str]:
    """`stages` with `enzyme-batch` and the AD pass added where the level lacks them; patterns
    before the AD pass leave alone the forms `transforms.equivalents` gave underivable ops."""
    stages = list(stages)
    if "enzyme-batch" not in stages:
        stages.insert(0, "enzyme-batch")
    if ENZYME_AD not in stages:
        stages.insert(stages.index("enzyme-batch") + 1, ENZYME_AD)
    before = stages.index(ENZYME_AD)
    return [("patterns_before_ad" if stage == "patterns" and i < before else stage)
            for i, stage in enumerate(stages)]


#: Enzyme-HLO patterns always left out, for what each got wrong (enzyme-ad 0.0.16):
#: - convert_convert_float folds f64 -> f32 -> f64 to nothing: NumPy rounds there, so must we;
#:   convert_convert_int folds a change of sign then a widening into one widening, which extends
#:   the wrong sign (int8 -128 -> uint8 -> int64 gave -128, NumPy 128);
#: - transpose_fft and concat_broadcast_slice emit invalid IR: a transpose that moves FFT
#:   dimensions, a concatenate of a broadcast slice;
#: - while_op_induction_replacement gives a counted loop's counter the bound as its final value
#:   when the step does not divide the distance (`while c < 10: c += 3` leaves 10, not 12);
#: - compare_op_canon folds a bitwise-not compared with 0 or -1 (`~x > -1`, `~x < 0`) to a constant;
#: - compare_ext turns == of two widened booleans into their `and` (False == False gave False);
#: - abs_positive_simplify takes a bitwise-not of an integer for non-negative (abs(~3) gave -4);
#: - cse_reduce_transposed merges sums of different values once reshapes are moved past them
#:   (np.sum(np.reshape(x < 0, 12)) gave the sum of x > 0);
#: - reduce_pad sums a padded array as its data plus the padding value once, not once per padded
#:   element (b[0] = 0; np.sum(b - 1) missed 3 of the 4 padded -1s);
#: - transpose_pad rewrites some modules forever (a masked write through a transposed view in a
#:   loop nested in a short unrolled one: the pipeline never returned);
#: - associative_common_mul_op_reordering factors sums of products (a*b + a*c -> a*(b + c)): other
#:   roundings, inf where NumPy gives NaN (a = -inf, b = -inf, c = 3), and a*b - b*a not 0;
#: - log_simplify takes log(1 / x) for -log(x): NaN at x = -0 becomes inf, and other roundings;
#: - divide_negated_operands_simplify and multiply_negated_operands_simplify turn -x / (a - b) into
#:   x / (b - a) and -x * (a - b) into x * (b - a): +0 where NumPy has -0, and an infinity made of it
#:   changes sign;
#: - compare_negate_const_simplify compares -a with -b as b with a: not for integers, where -a
#:   wraps (-INT_MIN is INT_MIN);
#: - binop_const_simplify folds (x * c) // c to x, and compare_subtract_const_simplify compares
#:   c - x with c as x with 0: for integers too, where x * c and c - x wrap (and for floats, where
#:   c - x rounds to c);
#: - select_known_predicate_operand rewrites a select's branches under its predicate, which leaves
#:   the branch of `//` and `%` that NumPy's zero divisor does not take dividing by that zero (the
#:   lowering guards the divisor with a select); div_const_prop and rem_const_prop fold that
#:   division on the host, and the process died of SIGFPE compiling `1 // (a - a)`;
#: - pow_simplify takes x ** -0.5 for rsqrt(x) (-inf at -0, NumPy inf; other roundings),
#:   power_multiply_to_power x ** p * x for x ** (p + 1) (inf for 0 ** -inf * 0, NumPy NaN), and
#:   exponential_minus_one_fuse np.exp(x) - 1 for np.expm1(x), which NumPy does not round alike;
#: - slice_pad gives a strided slice of a pad the wrong shape: an add of tensors of 2 and 3
#:   elements, on which later patterns made MLIR abort the process (the gradient of
#:   np.sum(np.cumsum(x)[::2] * y[::2]), whose prefix scan pads);
#: - while_elementwise_reduction_to_reduce sums a value a loop adds each step as one reduction,
#:   not in the loop's order: `t += dt` 1000 times in float32 gave 100.0 where NumPy's loop gives
#:   99.99905 (no kernel of benchmarks/kernels.py is slower without it);
#: - elementwise_complex_simplify takes a function of a complex made of a real array for the real
#:   function of that array: np.sqrt(x + 0j) gave nan + 0j at x = -4 (NumPy 2j), and so did log,
#:   arcsin, arccos, arctanh and arccosh where the real function is undefined;
#: - concat_insert_dim_reduce crashed the process (SIGSEGV) on a concatenate of reduces with two
#:   results each: np.array([x[0].argmax(), x[1].argmax()]);
#: - mul_simplify, with add_simplify and add_const_prop, rewrote forever a loop writing at a wrapped
#:   index (`for i in range(24): x[i - 1] = x[i] * 2` never compiled); benchmarks/kernels.py is as
#:   fast without it (geomean 9.11x over NumPy against 8.96x with it, one run each);
#: - add_terms_to_reduce and add_reduce_slice_fusion sum added elements or slices as one reduction, and
#:   mul_reduce_slice_fusion multiplies products of slices as one: not in the program's order or
#:   grouping (x[0] + x[1] + (x[2] + x[3]) of [1e16, 1, -1e16, 1] gave 1.0, NumPy 0.0; x[0:2].prod() *
#:   x[2:4].prod() of [1e200, 1e200, 1e-200, 1e-200] gave inf, NumPy nan);
#: - compare_convert compares widened integers in their narrow type but keeps the wide type's sign:
#:   `(x.astype(np.int64) & 1) != 0` of uint32, and int32 ** uint32, did not pass XLA's verifier;
#: - transpose_dus builds a dynamic_update_slice whose types do not check when one slice of a
#:   transposed 3-d array is written, read and written again (`c = np.moveaxis(a, -1, 0); c[0] = 1;
#:   c[2] = c[0] * 2`): MLIR aborted the process.
WRONG = ["convert_convert_float", "convert_convert_int", "transpose_fft", "concat_broadcast_slice",
         "while_op_induction_replacement", "compare_op_canon", "compare_ext", "abs_positive_simplify",
         "cse_reduce_transposed", "reduce_pad",
         "transpose_pad", "associative_common_mul_op_reordering", "log_simplify",
         "divide_negated_operands_simplify", "multiply_negated_operands_simplify",
         "compare_negate_const_simplify", "binop_const_simplify",
         "compare_subtract_const_simplify", "select_known_predicate_operand", "pow_simplify",
         "power_multiply_to_power", "exponential_minus_one_fuse", "slice_pad",
         "while_elementwise_reduction_to_reduce", "elementwise_complex_simplify", "concat_insert_dim_reduce",
         "mul_simplify", "add_terms_to_reduce", "add_reduce_slice_fusion", "mul_reduce_slice_fusion",
         "compare_convert", "transpose_dus"]


#: Enzyme-HLO patterns valid only without NaN or infinities (used under no_nan=True): negated
#: comparisons, products or quotients of a zero-padded array taken as zero where it is padded
#: (0 * inf and 0 / 0 are NaN), and a select by a comparison of its own operands taken as their
#: minimum or maximum (`np.where(b > a, a, b)` is b where either is NaN; np.minimum is NaN).
NAN_UNSAFE = ["not_compare", "common_compare_expression_rewrite", "mul_zero_pad", "div_zero_pad",
              "compare_select_simplify"]


#: Enzyme-HLO patterns that cost loops their in-place updates (PolyBench stencils at medium size,
#: solvent's time against jax.jit's on the same loop before and after leaving them out):
#: - while_dus carries only the block a loop writes and rebuilds the whole array from the
#:   loop's input every iteration, a copy of each array (jacobi-2d 33 -> 4.6 ms, jax 4.4 ms);
#: - slice_of_dynamic_update reads a just-written block as the value written, so XLA recomputes
#:   it inside the next update and copies the reads around it out first (heat-3d 24 -> 5.7 ms);
#: - dus_dus_concat and dynamic_update_to_concat make concatenations of updates, written to a
#:   new buffer each time with a copy of every carried array (fdtd-2d 21 -> 4.0 ms, jax 3.8 ms);
#: - while_induction_reduction carries only the part of an array a loop changes, which costs the
#:   same rebuild as while_dus when the body reads the rest (`relax` in tests/passes/
#:   test_block_updates.py at 2x10^5 elements, 100 steps: two copies per step, 62 -> 23 ms).
IN_PLACE_BREAKING = ["while_dus", "slice_of_dynamic_update", "dus_dus_concat", "dynamic_update_to_concat",
                     "while_induction_reduction"]

#: Enzyme-HLO patterns that make more work than they save: slice_concat takes a slice of a
#: concatenate for a concatenate of slices, once for each slice taken, so `np.roll(np.roll(a, i, 0),
#: j, 1)` over Game of Life's eight neighbours made 16 concatenates a step instead of 8 (16 steps
#: unrolled: a 7.1 s first call and 700 us a call; without it 3.6 s and 460 us, jax.jit 3.3 s). No
#: kernel of benchmarks/kernels.py changes without it. enzyme_hlo_unroll unrolls loops of up to 4
#: steps, which solvent rolls only on purpose (`statements.for_range`: a step that branches, is big, or
#: shifts its data many ways, whose copies XLA would fuse into each other: Game of Life by np.roll,
#: 5 generations, 1.2 s to compile and 230 us a call unrolled, 0.08 s and 35 us rolled).
#: reshape_concat moves reshapes of concatenates of scalars through them, which the patterns after it
#: move back, at a cost that grows as the square of the copies: 6 steps of a double pendulum by RK4
#: that keeps each state (np.array([w1, dw1, w2, dw2]) per stage) took the pipeline 4.5 s, 0.1 s without.
DUPLICATING = ["slice_concat", "enzyme_hlo_unroll", "reshape_concat"]

#: Reads an element a loop has not written yet from the loop's input rather than its carry. That
#: is what lets greedy_while_loop_batch_fission see independent iterations (syrk's rows become one
#: matrix product), but where the loop stays and runs inside another, XLA keeps the input alive
#: beside the carry: a copy of the array per outer iteration (seidel-2d 107 -> 8.6 ms without it,
#: jax.jit 12.3; floyd-warshall 208 -> 41). `run` leaves it out for such modules.
LOOP_INPUT_READS = "remove_loop_carried_dependencies_from_while_load_operations"


#: Patterns that have emitted invalid IR for a valid module together with others, so a pipeline
#: that fails runs again without them (enzyme-ad 0.0.16: with select_op_canon, on a CSR product
#: whose row bounds come from data, "number of output elements (1600) doesn't match expected
#: number of elements (20)"); and that gather slices wrongly, so a module whose loops slice where
#: data says runs without them from the first (`data_slices`), as does one whose loops reverse:
#: batching `for t in range(-9, 10): s += u[t:t - 3:-1].sum()`, the pattern made a 19x3x1 constant
#: of 19 values and then whatever lay in memory after them (wrong sums), or for 10 elements one MLIR
#: could not parse back.
FRAGILE = ("greedy_while_loop_batch_fission",)


#: Patterns that take values a loop computes from its counter for int64s that never wrap: in a narrow
#: or unsigned type they do (`narrow_counters`). remove_no_ops_from_while_loop bounds them as signed
#: integers and folds comparisons by those bounds (a uint64 span of 2^63 or more counted as negative:
#: rng.integers(-2**62 - i, 2**62 + 1) in a loop drew 32-bit words; `x[k:k + 2]` with k = np.int8(124)
#: + i summed nothing once k + 2 wrapped); greedy_while_loop_batch_fission batches `np.uint8(250) + i`
#: as int64 (-6 where NumPy has 250, 128 where np.int8(122) + 6 wraps to -128). `run` leaves both out
#: for such modules only: without the first everywhere, gray_scott and nussinov ran 25-40% slower.
NARROW_COUNTERS = ("remove_no_ops_from_while_loop", "greedy_while_loop_batch_fission")


#: A scatter of several arrays at once (`ufunc.at` computing in a wider loop dtype):
#: enzyme-ad 0.0.16's scatter_op_canon rewrites it forever, so it is left out for such modules.
_VARIADIC_SCATTER = re.compile(r'%[\w#]+:\d+ = "stablehlo\.scatter"')


@functools.lru_cache(maxsize=None)
def pipeline(level: str, no_nan: bool = False, enzyme_ops: bool = False, variadic_scatter: bool = False,
             without: tuple[str, ...] = ()) -> str:
    """The pass pipeline text of an optimize level (`enzyme_ops`: the module holds autodiff or
    batch ops, which every level then lowers to StableHLO; `variadic_scatter`: it holds a
    scatter with several results; `without`: patterns left out besides those always left out)."""
    if level not in LEVELS:
        raise ValueError(f"unknown optimize level {level!r}; choose one of {', '.join(LEVELS)}")
    excluded = [*WRONG, *IN_PLACE_BREAKING, *DUPLICATING] + ([] if no_nan else NAN_UNSAFE)
    excluded += ["scatter_op_canon"] if variadic_scatter else []
    excluded += without
    common = {"no_nan": no_nan, "excluded_passes": excluded}
    patterns = {
        "patterns": optimization_passes(**common),
        "patterns_down": optimization_passes(**common, transpose_propagate="down", reshape_propagate="down"),
        "patterns_before_ad": optimization_passes(**common, enable_reduce_slice_fusion_passes=False),
    }
    stages = _lowering_enzyme(LEVELS[level]) if enzyme_ops else WITHOUT_ENZYME_OPS.get(level, LEVELS[level])
    stages = [patterns.get(stage, stage) for stage in stages]
    # enzymexla.* attributes the passes leave behind are not StableHLO: XLA refuses them.
    return ",".join(stages + ["drop-unsupported-attributes"]) if stages else ""


def level_name(optimize) -> str:
    """`optimize=True/False/"name"` as a level name."""
    if optimize is True:
        return "all"
    if optimize is False:
        return "none"
    return optimize


def callees_first(module_text: str) -> str:
    """The module with every function after the functions it names (calls, Enzyme ops).

    enzyme-batch rewrites the ops in module order; a batched function holding another
    `enzyme.batch` (vmap of vmap, Jacobians of Jacobians) comes out right only when the
    inner op was rewritten first.
    """
    module = parse(module_text)
    functions = {op.sym_name.value: op for op in module.body.operations if hasattr(op, "sym_name")}
    order: list[str] = []

    def visit(name, path):
        if name in order or name in path:
            return
        for callee in re.findall(r"@([\w$.-]+)", str(functions[name])):
            if callee in functions and callee != name:
                visit(callee, path | {name})
        order.append(name)
    for name in functions:
        visit(name, set())
    with module.context:
        for name in order:
            functions[name].operation.move_after(list(module.body.operations)[-1])
    return to_text(module)


def _run(names: list[str], module_text: str, passes: str, level: str) -> tuple[str, ir.Module]:
    """The entry point's new name and the module after one pipeline."""
    with _stderr_held() as held:
        try:
            name, text = enzyme_call.run_pass_pipeline(names, module_text, passes)
            module = parse(text)  # (a pattern can print a constant MLIR cannot read back)
        except Exception as error:  # enzyme_call raises plain RuntimeErrors, holding what MLIR printed
            raise explained(str(error), module_text, level) from error
        held.replay = True
    return name, module


@contextlib.contextmanager
def _stderr_held():
    """Hold what C++ code writes to stderr (MLIR prints a failing pass's diagnostics there itself,
    which the error then repeats): written out at the end only if `replay` was set."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to hold
        yield types.SimpleNamespace()
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        state = types.SimpleNamespace(replay=False)
        try:
            yield state
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            if state.replay:
                held.seek(0)
                os.write(2, held.read())


#: Ops that read part of an array.
_READS = ("stablehlo.dynamic_slice", "stablehlo.slice", "stablehlo.gather")


def _reads_nested_loop_inputs(module: ir.Module) -> bool:
    """Whether a while loop inside another one reads, in its body, an array it also carries
    from its input (what LOOP_INPUT_READS makes of a read the loop has not written yet)."""
    loops, found = [], []

    def collect(op):
        if op.name == "stablehlo.while" and in_loop(op):
            loops.append(op)
        return ir.WalkResult.ADVANCE

    def reads(inputs):
        def check(op):
            if op.name in _READS and op.operands[0] in inputs:
                found.append(op)
            return ir.WalkResult.ADVANCE
        return check

    module.operation.walk(collect)
    for loop in loops:
        for op in loop.regions[1].blocks[0].operations:
            op.walk(reads(list(loop.operands)))
    return bool(found)


def _reverses_in_loop(op) -> bool:
    return op.name == "stablehlo.reverse" and in_loop(op)


def passes_for(module_text: str, level: str, no_nan: bool = False, without: tuple[str, ...] = ()) -> str:
    """The pipeline text `run` applies to this module at this level (first; see `run`)."""
    return pipeline(level, no_nan, bool(ENZYME_OPS.search(module_text)), bool(_VARIADIC_SCATTER.search(module_text)),
                    without)


def run(module_text: str, level: str, no_nan: bool = False) -> str:
    """Run an optimize level over a module whose entry point is `main`; returns the new text.
    Two-branch cases on scalars become ifs first, which the patterns turn into selects (`two_way_cases`);
    in a module Enzyme batches or differentiates, loops carry unsigned integers as signless (`signless_carries`).
    Where the result reads a nested loop's input inside it, the level runs again without
    LOOP_INPUT_READS; where the pipeline fails with no diagnosis, again without the FRAGILE patterns;
    where a loop takes a table of per-iteration broadcasts, again with those kept in the loop
    (`loop_broadcasts`). Modules whose loops compute narrow integers from their counters run
    without NARROW_COUNTERS."""
    enzyme_ops = bool(ENZYME_OPS.search(module_text))
    passes = passes_for(module_text, level, no_nan)
    if not passes:
        return module_text
    module_text = empty_values.folded(module_text)  # (patterns that crash on them)
    if enzyme_ops:
        module_text = signless_carries.signless(callees_first(module_text))
    else:  # (a module Enzyme differentiates or batches keeps the cases `transforms.equivalents` made)
        module_text = two_way_cases.as_ifs(module_text)
    parsed = parse(module_text)
    names = [op.sym_name.value for op in parsed.body.operations]
    narrow = NARROW_COUNTERS if narrow_counters.found(parsed) else ()
    without = (FRAGILE if data_slices.sliced_by_data(parsed) or ops_where(parsed, _reverses_in_loop) else ()) + narrow
    passes = passes_for(module_text, level, no_nan, without)
    try:
        name, module = _run(names, module_text, passes, level)
    except Undiagnosed:
        without = FRAGILE + narrow
        passes = passes_for(module_text, level, no_nan, without)
        name, module = _run(names, module_text, passes, level)
    if LOOP_INPUT_READS in passes and _reads_nested_loop_inputs(module):
        passes = passes_for(module_text, level, no_nan, (*without, LOOP_INPUT_READS))
        name, module = _run(names, module_text, passes, level)
    if loop_broadcasts.precomputed(module):
        name, module = _run(names, loop_broadcasts.kept_in_loops(module_text), passes, level)
    main = find_function(module, name)  # the pipeline renames main and makes it private
    with module.context:
        main.attributes["sym_name"] = ir.StringAttr.get("main")
        if "sym_visibility" in main.attributes:
            del main.attributes["sym_visibility"]
    return to_text(module)
