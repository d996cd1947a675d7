"""switchboard's HTTP side: config, classification, dispatch, SSE. Never imports vLLM."""
