# Two commands: `make demo` and `make test`. Both create or reuse .venv.
PYTHON ?= python3.11
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test fuzz bench docs clean

$(STAMP): pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/python examples/demo.py

test: $(STAMP)
	$(VENV)/bin/python -m pytest -n 2 --dist loadfile

fuzz: $(STAMP)
	$(VENV)/bin/python tests/fuzz/run.py --minutes $(or $(MINUTES),10)

bench: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,bench]'
	$(VENV)/bin/python benchmarks/report.py

docs: $(STAMP)
	$(VENV)/bin/python -c 'from solvent.numpy.registry import coverage_markdown as c; print(c(), end="")' > docs/supported.md

clean:
	rm -rf $(VENV) build *.egg-info .cache
