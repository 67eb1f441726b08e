"""Private plumbing, not part of the API: Gymnasium's registration hook (`gym_hook`), child processes and
their trees (`proc`), and key redaction for logs and reports (`redact`)."""
