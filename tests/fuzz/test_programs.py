"""A short, fixed slice of the differential fuzz (`make fuzz` runs it for minutes, at random)."""

from hypothesis import HealthCheck, given, settings, strategies as st

from programs import Stats, check, programs

STATS = Stats()


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(), st.integers(0, 2 ** 16))
def test_random_programs_match_numpy(program, seed):
    check(program, STATS, cases=10, seed=seed)


def test_the_slice_compared_cases():
    assert STATS.cases > 0, STATS
