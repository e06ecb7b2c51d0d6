"""Abstract values, the structure walker, traced types and the trace context."""
