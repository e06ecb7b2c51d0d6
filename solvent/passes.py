"""Optimize levels as named Enzyme-JAX pass pipelines (data, not branches), and running them."""

from __future__ import annotations

import functools

from enzyme_ad.jax import enzyme_call, optimization_passes
from jaxlib.mlir import ir

from solvent.errors import CompileError
from solvent.ir.module import find_function, parse, to_text

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


@functools.lru_cache(maxsize=None)
def pipeline(level: str, no_nan: bool = False) -> str:
    """The pass pipeline text of an optimize level."""
    if level not in LEVELS:
        raise ValueError(f"unknown optimize level {level!r}; choose one of {', '.join(LEVELS)}")
    patterns = {
        "patterns": optimization_passes(no_nan=no_nan),
        "patterns_down": optimization_passes(no_nan=no_nan, transpose_propagate="down", reshape_propagate="down"),
    }
    stages = [patterns.get(stage, stage) for stage in LEVELS[level]]
    # enzymexla.* attributes the passes leave behind are not StableHLO: XLA refuses them.
    return ",".join(stages + ["drop-unsupported-attributes"]) if stages else ""


def level_name(optimize) -> str:
    """`optimize=True/False/"name"` as a level name."""
    if optimize is True:
        return "all"
    if optimize is False:
        return "none"
    return optimize


def run(module_text: str, level: str, no_nan: bool = False) -> str:
    """Run an optimize level over a module whose entry point is `main`; returns the new text."""
    passes = pipeline(level, no_nan)
    if not passes:
        return module_text
    names = [op.sym_name.value for op in parse(module_text).body.operations]
    try:
        name, text = enzyme_call.run_pass_pipeline(names, module_text, passes)
    except Exception as error:  # enzyme_call raises plain RuntimeErrors
        raise CompileError(f"the {level!r} pass pipeline failed: {error}") from error
    module = parse(text)
    main = find_function(module, name)  # the pipeline renames main and makes it private
    with module.context:
        main.attributes["sym_name"] = ir.StringAttr.get("main")
        if "sym_visibility" in main.attributes:
            del main.attributes["sym_visibility"]
    return to_text(module)
