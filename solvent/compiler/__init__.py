"""From a traced module to a call: the generated thunk per signature (`thunk`) and the call keys
and per-function cache of thunks (`cache`)."""
