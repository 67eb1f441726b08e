"""The shipped suites (maps to evaluate on, with their WAD); installed as the package doomagent._suites."""
