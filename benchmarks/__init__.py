"""Side-by-side benchmarks: switchboard against `vllm serve` and a direct AsyncLLM driver.

`python -m benchmarks.run --help` is the entry point; `benchmarks/results/` holds the report.
"""
