"""Engines behind the router: the Engine protocol, vLLM adapter, fake engine, model sources."""
