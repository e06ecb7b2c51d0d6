"""The source rewrite: a user's function -> the same function with `if`, `while`, `for` and boolean
operators calling `statements`, which runs plain Python on static values and traced control flow
on traced ones (`rewrite`)."""
