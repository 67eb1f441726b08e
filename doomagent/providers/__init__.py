"""Model providers behind one protocol, with one real adapter over LiteLLM (issue 3)."""
