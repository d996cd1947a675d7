"""Engines behind the router: the Engine protocol, the vLLM adapter, a fake engine, model sources."""
