"""Resolution: call sites to the symbols they call (scopes, imports, values and
types, class hierarchies), asking each file's ``Language`` for its rules."""
