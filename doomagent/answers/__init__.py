"""Reading what models answer: actions and reasons out of free text or JSON (`decisions`), the Vision
report's schema and the strict JSON schemas sent to providers (`schemas`), and the engine's own account of
the screen that Vision is checked against (`perception`)."""
